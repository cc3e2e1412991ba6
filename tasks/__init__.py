"""Prefect tasks, one module per step, each thin over plain functions of launchops."""
