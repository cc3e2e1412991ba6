"""Keypairs, signing, sending, rebroadcast and confirmation (solana-py, solders)."""
