"""What a launch's panel says to do next, and the pieces that make tables fit."""

from __future__ import annotations

import pytest

from launchops.cli.panels import next_step
from launchops.cli.tables import Column, Listing, fit, fit_path, shorten_addresses

SIG = "3KBNGo7xTWXkJcGZ8ffCoA1KkPauq7iDP3KCV3aSuN8UXgnsTi3bWHopfajhuVztutNfSq8zL43Hdr7RpzDKjAXB"


@pytest.mark.parametrize(
    ("state", "extra", "command"),
    [
        ("register_failed", {}, "launchops registrations retry"),
        ("needs_attention", {}, "launchops status k1"),
        ("failed", {}, "launchops launch a.yaml"),
        ("expired", {"resumable": True}, "launchops resume k1"),
        ("submitting", {"resumable": True}, "launchops resume k1"),
    ],
)
def test_each_state_that_needs_action_names_the_command(state, extra, command):
    result = {"key": "k1", "state": state, "finished": False, **extra}
    what, does = next_step(result, "launchops launch a.yaml")
    assert does == command and what


def test_needs_attention_says_what_landed():
    details = [{"landed": [SIG], "notLanded": [SIG[::-1]]}]
    result = {"key": "k", "state": "needs_attention", "finished": False, "errorDetails": details}
    what, _ = next_step(result, "x")
    assert what.startswith("1 of 2 transactions landed") and "a person decides" in what


def test_a_finished_launch_has_no_next_step():
    assert next_step({"key": "k", "state": "registered", "finished": True}, "x") is None


def test_fit_and_paths_and_addresses():
    assert fit("abcdef", 4) == "abc…" and fit("abc", 4) == "abc"
    assert fit_path("/a/very/long/folder/name/result.json", 20) == "/a/very…/result.json"
    assert shorten_addresses(f"sent {SIG} twice") == "sent 3KBNGo…DKjAXB twice"


def test_a_listing_cuts_its_shrinking_column_to_the_width():
    listing = Listing("t", [Column("key", shrinks=True), Column("state")])
    listing.add(["k" * 100, "registered"], "a detail")
    widths = listing.widths(40)
    assert sum(widths) + 2 <= 40 and widths[1] == len("registered")
