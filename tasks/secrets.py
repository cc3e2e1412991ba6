"""Keypairs kept in Prefect Secret blocks (`keypair: prefect-secret:NAME` in a profile)."""

from __future__ import annotations


def secret_keypair(name: str) -> str:
    from prefect.blocks.system import Secret

    return str(Secret.load(name).get())
