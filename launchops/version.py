"""The version of launchops (what `launchops --version` and the client's User-Agent say)."""

__version__ = "0.1.0"
