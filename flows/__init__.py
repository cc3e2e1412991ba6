"""Prefect flows: they compose tasks and hold no business logic of their own."""
