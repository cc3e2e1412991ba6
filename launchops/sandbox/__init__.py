"""The sandbox: a local implementation of the whole `/v1` service over a real Solana VM
(LiteSVM), with a Solana JSON-RPC endpoint. Start it with `launchops sandbox serve`, or
in-process:

    from launchops.sandbox.server import Sandbox, SandboxConfig

    with Sandbox(SandboxConfig(port=0, slot_ms=0)) as sandbox:
        ...  # sandbox.base_url, sandbox.rpc_url, sandbox.ws_url

Nothing is imported here, so `import launchops.sandbox` stays free of FastAPI.
"""
