"""What a launch file gives that never leaves the process: the first buyer's key (a
keypair source, as a profile's `keypair`) and the Twitter verification token.

Neither reaches the journal, a log, a Prefect result, an event or an error: the journal
keeps only which of them a launch has (`LaunchOrder.secrets`), and a run that does not
hold them (a resume in another process) reads them again from the launch's file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from solders.keypair import Keypair

from launchops.errors import KeypairError

FIRST_BUY_WALLET = "bondingCurve.firstBuyWallet"
TWITTER_TOKEN = "twitterVerificationToken"


@dataclass(frozen=True)
class LaunchSecrets:
    """A launch's secrets, shown by name only (`repr` and `str` never show a value)."""

    first_buyer: Keypair | None = field(default=None, repr=False)
    twitter_token: str | None = field(default=None, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        """Which secrets there are, as the journal may keep them: names, never values."""
        given = ((FIRST_BUY_WALLET, self.first_buyer), (TWITTER_TOKEN, self.twitter_token))
        return tuple(name for name, value in given if value is not None)

    @property
    def signers(self) -> tuple[Keypair, ...]:
        """Keys that sign a launch's transactions beside the creator's (a first buyer)."""
        return (self.first_buyer,) if self.first_buyer is not None else ()

    def __repr__(self) -> str:
        return f"LaunchSecrets({', '.join(self.names) or 'none'})"


NO_SECRETS = LaunchSecrets()


def load_first_buyer(source: str, resolver: Callable[[str], str] | None) -> Keypair:
    """The first buyer's key from its source; a KeypairError (never showing key material)
    when it cannot be read. The sandbox's throwaway key is the creator's, not a buyer's."""
    from launchops.chain.keys import load_keypair

    if source.partition(":")[0] not in ("file", "env", "prefect-secret"):
        raise KeypairError("use file:PATH, env:VAR or prefect-secret:NAME")
    return load_keypair(source, state_dir=Path("."), resolver=resolver)


__all__ = ["FIRST_BUY_WALLET", "NO_SECRETS", "TWITTER_TOKEN", "LaunchSecrets", "load_first_buyer"]
