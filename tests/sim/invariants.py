"""The promise, as checks the simulation makes after every command of a scenario:

1. at most one mint on chain per launch (and exactly one once re-runs converged);
2. never `failed`, nor an attempt journaled as ending with nothing landed (`expired`,
   `failed`), while a mint of it is on chain;
3. every command ended within its bound, and said what went wrong in one line: no
   traceback, no HTML, no markup, nowhere (its error, every row's error);
4. once a user re-ran it, every launch is registered, with nobody acting, but those whose
   transaction failed on chain (a person's case by nature);
5. the key in the RPC URL (`?api-key=`) and the password in the service URL are in
   nothing launchops shows or keeps: no error, no row, no output, no file of its home;
6. nothing the file did not ask for ever lands: no create a compromised service rewrote
   to steal has its mint on chain, and the stranger it pays holds nothing;
7. an honest create is never refused: a launch `refused` is one whose create answer a
   compromised service rewrote to steal.

The chain is read from the service's own record of every create it answered and whether
its mint exists (`GET /_sandbox/launches`), not from the journal under test.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from launchops.journal.records import LaunchRecord
from launchops.sandbox.compromise import STEALING

UNREADABLE = re.compile(r"Traceback|<html|<!DOCTYPE|<head|\[/?(bold|red|dim|green)[^\]]*\]", re.I)


class Broken(AssertionError):
    """An invariant did not hold: which, and what was seen."""


def mints_on_chain(creates: Iterable[dict[str, Any]], names: dict[str, str]) -> Counter[str]:
    """How many creates of each launch (by key) have their mint on chain."""
    by_name = {name: key for key, name in names.items()}
    found: Counter[str] = Counter()
    for create in creates:
        key = by_name.get(create["name"])
        if key is not None and create["mintOnChain"]:
            found[key] += 1
    return found


def at_most_one_mint(mints: Counter[str]) -> None:
    twice = {key: n for key, n in mints.items() if n > 1}
    if twice:
        raise Broken(f"more than one mint on chain: {twice}")


def nothing_landed_is_true(records: dict[str, LaunchRecord], on_chain: set[str]) -> None:
    """No launch `failed`, and no attempt journaled as ending with nothing landed, whose
    mint is on chain (`on_chain`: every mint address on chain)."""
    for key, record in records.items():
        for attempt in record.attempts:
            mint = str(attempt.created.mint) if attempt.created.mint else None
            said_nothing = attempt.outcome in ("expired", "failed") or (
                record.state == "failed" and attempt.number == record.attempt
            )
            if said_nothing and mint in on_chain:
                raise Broken(
                    f"{key}: attempt {attempt.number} journaled as nothing landed "
                    f"({attempt.outcome or record.state}) but its mint {mint} is on chain"
                )


def nothing_unasked_lands(creates: Iterable[dict[str, Any]], stranger: int) -> None:
    """No stealing answer landed (its mint on chain), and the stranger holds nothing."""
    for create in creates:
        if create.get("attack") in STEALING and create["mintOnChain"]:
            raise Broken(
                f"{create['name']}: the create a compromised service rewrote "
                f"({create['attack']}) has its mint {create['mint']} on chain"
            )
    if stranger:
        raise Broken(f"the stranger a compromised service pays holds {stranger} lamports")


def honest_never_refused(records: dict[str, LaunchRecord], creates: Iterable[dict]) -> None:  # type: ignore[type-arg]
    """A launch `refused` only for a create answer rewritten to steal."""
    attacks = {create["mint"]: create.get("attack") for create in creates}
    for key, record in records.items():
        if record.state != "refused":
            continue
        mint = str(record.current.created.mint) if record.current else None
        if attacks.get(mint) not in STEALING:
            raise Broken(
                f"{key}: refused, but its create ({mint}, "
                f"{attacks.get(mint) or 'honest'}) was not rewritten to steal: "
                f"{record.last_error}"
            )


def one_line(where: str, text: str | None) -> None:
    """An error as a person reads it: one line, no traceback, no HTML, no markup."""
    if not text:
        return
    if "\n" in text.strip() or "\r" in text or UNREADABLE.search(text):
        raise Broken(f"{where}: not one clean line: {text[:400]!r}")


def no_secret(where: str, text: str | bytes | None, secrets: Iterable[str]) -> None:
    """None of `secrets` (the URLs' key and password) in what launchops showed or kept."""
    if not text:
        return
    found = text if isinstance(text, str) else text.decode(errors="replace")
    for secret in secrets:
        if secret in found:
            at = found.index(secret)
            raise Broken(f"{where}: a URL's secret is shown: {found[max(at - 80, 0) : at]!r}…")


def converged(
    records: dict[str, LaunchRecord], mints: Counter[str], keys: list[str], *, tail_fails: bool
) -> None:
    """Every launch registered with one mint, but one whose transaction failed on chain."""
    for key in keys:
        record = records.get(key)
        if record is None:
            raise Broken(f"{key}: not in the journal after the re-runs")
        failed_on_chain = "failed on chain" in (record.last_error or "")
        if record.state == "registered":
            if mints[key] != 1:
                raise Broken(f"{key}: registered with {mints[key]} mints on chain")
            continue
        if tail_fails and failed_on_chain and record.state in ("needs_attention", "failed"):
            continue
        raise Broken(
            f"{key}: {record.state} after the re-runs a user would make "
            f"({record.last_error!r}), {mints[key]} mint(s) on chain"
        )
