"""The sandbox's HTTP routes, one `APIRouter` per area; `app.py` assembles them.

    agents.py    GET /v1/agents, the hosted agent card, the fund and withdraw builders
    launches.py  POST /v1/launches/create and /register, and the /launch/{id} page
    tokens.py    GET /v1/tokens/{token_address}
    admin.py     /_sandbox/...: faults, stats, slots, seeding (outside /v1)
    rpc.py       Solana JSON-RPC (POST /) and PubSub (WebSocket /)

Each handler takes the service (and the PubSub hub) through FastAPI's dependency
injection (`state.py`), translates the wire to a call and the contract's model back.
"""
