"""launchops: token launches on Solana from YAML files, resumable at every step.

Importing this package stays light: no Prefect, FastAPI or solana-py at import time.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
