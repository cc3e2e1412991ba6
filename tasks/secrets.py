"""Keypairs kept in Prefect Secret blocks (`keypair: prefect-secret:NAME` in a profile)."""

from __future__ import annotations


def secret_keypair(name: str) -> str:
    from prefect.blocks.system import Secret

    # `load` dispatches to its async twin inside a running loop; the key loader is sync.
    secret = Secret.load(name, _sync=True)  # type: ignore[call-arg]
    return str(secret.get())
