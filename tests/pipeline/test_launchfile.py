"""Launch files: the three forms compile to the spec's launch, and every broken rule is
reported with its file, line, field and rule, without a network call or a traceback."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from solders.keypair import Keypair

from launchops.api.errors import LaunchFileError
from launchops.api.fields import Network
from launchops.config.launchfile import launch_files, load_launch_file, schema
from tests.support.pipeline import (
    CONFIGS,
    RECIPIENT,
    WALLET,
    dump_yaml,
    future,
    launch_document,
    load_launch,
    write_launch,
)


def problems(path: Path, **kw) -> list[str]:
    with pytest.raises(LaunchFileError) as caught:
        load_launch(path, **kw)
    return [str(p) for p in caught.value.file_problems]


def write_text(tmp_path: Path, text: str, name: str = "launch.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_launchpool_recipe_compiles_like_the_js_client(tmp_path):
    plan = load_launch(write_launch(tmp_path, key="lp-1"))
    config = plan.config
    assert plan.key == "lp-1" and config.type == "launchpool" and config.public_key == WALLET
    assert [(a.type, a.name, a.supply) for a in config.allocations] == [
        ("launchpoolV2", "Launchpool", 500_000_000),
        ("lockedV2", "Team", 50_000_000),
        ("unlockedV2", "Creator Allocation", 200_000_000),
    ]
    pool = config.allocations[0].launchpool_v2
    assert (
        pool.deposit_end_condition.timestamp - pool.deposit_start_condition.timestamp
    ).total_seconds() == 48 * 3600
    [unlocked, lp] = pool.fund_flows
    assert (unlocked.percentage_bps, lp.percentage_bps, lp.supply) == (5000, 5000, 250_000_000)
    assert str(unlocked.recipient) == RECIPIENT
    assert pool.claim_start_condition.bucket_time == "Graduate"
    total = sum(b.supply for b in config.buckets())
    assert total == config.supply == 1_000_000_000 and config.decimals == 6


def test_the_presale_recipe_and_raw_allocations(tmp_path):
    presale = load_launch(write_launch(tmp_path, "p.yaml", form="presale")).config
    assert [a.type for a in presale.allocations] == ["presaleV2", "unlockedV2"]
    assert presale.allocations[0].presale_v2.funds_recipient == WALLET
    raw = load_launch(write_launch(tmp_path, "r.yaml", form="raw", network="solana-devnet")).config
    assert (raw.decimals, raw.supply, raw.network) == (9, 1_000_000, Network.DEVNET)
    assert [a.type for a in raw.allocations] == ["presaleV2", "raydiumV2", "unlockedV2"]


def test_the_key_is_the_id_or_a_stable_hash(tmp_path):
    # The same text under another name (written once: the document's dates are "now + N
    # days" to the second, so two writes can straddle a second and differ).
    written = write_launch(tmp_path, "a.yaml")
    copy = tmp_path / "b.yaml"
    copy.write_text(written.read_text())
    first, again = load_launch(written), load_launch(copy)
    assert first.key == again.key and first.key.startswith("h-")
    other_network = load_launch(write_launch(tmp_path, "c.yaml", network="solana-devnet"))
    assert other_network.key != first.key and other_network.config_hash != first.config_hash


def test_environment_variables_expand(tmp_path, monkeypatch):
    monkeypatch.setenv("LAUNCH_NAME", "From The Env")
    path = write_launch(
        tmp_path, filename="env.yaml", **{"name": "${LAUNCH_NAME}", "symbol": "${SYM:-ENV}"}
    )
    config = load_launch(path).config
    assert (config.name, config.symbol) == ("From The Env", "ENV")
    path = write_launch(tmp_path, filename="missing.yaml", description="${NOT_SET_ANYWHERE}")
    assert problems(path) == [
        f"{path}:4: description: uses ${{NOT_SET_ANYWHERE}}, which is not set"
    ]


def test_each_rule_is_reported_with_file_line_and_field(tmp_path):
    document = launch_document()
    document["name"] = "x" * 40
    document["image"] = "ftp://nope"
    document["launchpool"]["raiseGoal"] = -1
    document["launchpool"]["raydiumLiquidityBps"] = 100
    document["launchpool"]["fundsRecipient"] = "0OIl"
    document["launchpool"]["lockedAllocations"][0]["vestingDuration"]["unit"] = "FORTNIGHT"
    document["launchpool"]["tokenAllocaton"] = 5
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    lines = path.read_text().splitlines()

    def line_of(text: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if text in line)

    found = problems(path)
    assert f"{path}:{line_of('name:')}: name: must be 1 to 32 characters (got 40)" in found
    assert (
        f"{path}:{line_of('image:')}: image: must be an http(s) URL, e.g. https://gateway.irys.xyz/<id>"
        in found
    )
    assert (
        f"{path}:{line_of('raiseGoal')}: launchpool.raiseGoal: must be greater than 0 (got -1)"
        in found
    )
    assert any(
        p.startswith(f"{path}:{line_of('raydiumLiquidityBps')}: launchpool.raydiumLiquidityBps:")
        for p in found
    )
    assert any(
        f"{path}:{line_of('fundsRecipient')}: launchpool.fundsRecipient: must be a base58" in p
        for p in found
    )
    assert any(
        "launchpool.lockedAllocations[0].vestingDuration.unit: must be 'SECOND'" in p for p in found
    )
    assert (
        f"{path}:{line_of('tokenAllocaton')}: launchpool.tokenAllocaton: is not a known field"
        in found
    )


@pytest.mark.parametrize(
    ("form", "path", "value", "message"),
    [
        ("raw", ["decimals"], 40, "decimals: must be 1 to 9 (got 40)"),
        ("raw", ["decimals"], 0, "decimals: must be 1 to 9 (got 0)"),
        ("raw", ["supply"], 10**30, "supply: must be 1 to 10^18 (got 10^30)"),
        (
            "raw",
            ["allocations", 0, "supply"],
            10**400,
            "allocations[0].supply: must be at most 10^18 (got 10^400)",
        ),
        (
            "raw",
            ["allocations", 2, "supply"],
            1e300,
            "allocations[2].supply: must be at most 10^18 (got 1e+300)",
        ),
        (
            "raw",
            ["allocations", 0, "presaleV2", "allocationQuoteTokenCap"],
            float("inf"),
            "allocations[0].presaleV2.allocationQuoteTokenCap: must be a finite number (got inf)",
        ),
        (
            "launchpool",
            ["launchpool", "tokenAllocation"],
            10**25,
            "launchpool.tokenAllocation: must be at most 10^18 (got 10^25)",
        ),
        (
            "launchpool",
            ["launchpool", "raiseGoal"],
            1e11,
            "launchpool.raiseGoal: must be at most 10^10 (got 100000000000.0)",
        ),
        (
            "launchpool",
            ["launchpool", "lockedAllocations", 0, "vestingDuration"],
            {"value": 5000, "unit": "YEAR"},
            "launchpool.lockedAllocations[0].vestingDuration: value 5000 YEAR is longer than "
            "100 years",
        ),
        (
            "presale",
            ["presale", "depositLimit"],
            10**20,
            "presale.depositLimit: must be at most 10^10 (got 10^20)",
        ),
    ],
    ids=lambda v: v.split(":")[0] if isinstance(v, str) and ":" in v else "",
)
def test_a_number_out_of_range_names_file_line_and_field(tmp_path, form, path, value, message):
    document = launch_document(form)
    node = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    file = tmp_path / "huge.yaml"
    file.write_text(yaml.safe_dump(document, sort_keys=False))
    assert f"{file}:{key_line(file.read_text(), path)}: {message}" in problems(file)


def key_line(text: str, path: list) -> int:
    """The line of the key at `path` in a YAML text."""
    node, line = yaml.compose(text), 0
    for part in path:
        if isinstance(part, int):
            node = node.value[part]
            continue
        key, node = next((k, v) for k, v in node.value if k.value == part)
        line = key.start_mark.line + 1
    return line


@pytest.mark.parametrize(
    ("start", "shown"),
    [
        ("9999-12-31", "9999-12-31T00:00:00.000Z"),
        ("9999-12-30T00:00:01Z", "9999-12-30T00:00:01.000Z"),
    ],
)
def test_a_deposit_window_past_the_calendar_is_a_rule_not_an_overflow(tmp_path, start, shown):
    # start + 48 hours raised OverflowError out of load_launch_file (a traceback).
    document = launch_document()
    document["launchpool"]["depositStartTime"] = start
    file = tmp_path / "late.yaml"
    file.write_text(yaml.safe_dump(document, sort_keys=False))
    line = key_line(file.read_text(), ["launchpool", "depositStartTime"])
    assert problems(file) == [
        f"{file}:{line}: launchpool.depositStartTime: the 48-hour deposit window must end by "
        f"9999-12-31T23:59:59Z (got {shown})"
    ]


def test_more_buckets_than_a_launch_holds_is_a_file_error(tmp_path):
    document = launch_document()
    [team] = document["launchpool"]["lockedAllocations"]
    document["launchpool"]["lockedAllocations"] = [
        {**team, "name": f"Team {i}", "tokenAmount": 1000} for i in range(100)
    ]
    file = tmp_path / "many.yaml"
    file.write_text(dump_yaml(document))
    line = key_line(file.read_text(), ["launchpool"])
    assert problems(file) == [
        f"{file}:{line}: launchpool: a launch holds at most 100 buckets (allocations and "
        "liquidity-pool flows); this one has 103"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "must be a mapping of launch fields, not empty"),
        ("- a\n- b\n", "must be a mapping of launch fields, not a list"),
        ("just words", "must be a mapping of launch fields, not a str"),
        ("name: [unclosed\n", "is not valid YAML"),
        ("{1: 2}", "every key must be text"),
    ],
)
def test_files_that_are_not_launches(tmp_path, text, expected):
    [found] = problems(write_text(tmp_path, text))
    assert expected in found and "(file)" in found


def test_binary_junk_and_unreadable_files(tmp_path):
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(bytes(range(256)) * 4)
    assert problems(junk) == [f"{junk}: (file): is not UTF-8 text"]
    missing = tmp_path / "nope.yaml"
    assert "cannot be read" in problems(missing)[0]


def test_the_launch_needs_exactly_one_form(tmp_path):
    document = launch_document()
    document["presale"] = launch_document("presale")["presale"]
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(document))
    assert any(
        "give exactly one of launchpool:, presale:, bondingCurve: or allocations:" in p
        for p in problems(path)
    )


def test_common_sense_rules(tmp_path):
    document = launch_document("presale")
    document["presale"]["depositEndTime"] = document["presale"]["depositStartTime"]
    path = tmp_path / "times.yaml"
    path.write_text(yaml.safe_dump(document))
    assert any("the deposit window must end after it starts" in p for p in problems(path))
    past = write_launch(tmp_path, "past.yaml")
    text = past.read_text()
    start = yaml.safe_load(text)["launchpool"]["depositStartTime"]
    past.write_text(text.replace(start, "2020-01-01T00:00:00Z"))
    assert any("is in the past" in p for p in problems(past))
    assert load_launch(past, now=None).key  # a resumed launch is not held to it
    raw = launch_document("raw")
    raw["allocations"][2]["supply"] = 100
    path = tmp_path / "whole.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert any("must allocate its whole supply: 800100 of 1000000" in p for p in problems(path))
    vesting = launch_document()
    vesting["launchpool"]["lockedAllocations"][0]["vestingStartTime"] = future(30.5)
    path = tmp_path / "vesting.yaml"
    path.write_text(yaml.safe_dump(vesting))
    assert any("vesting of 'Team' starts before deposits end" in p for p in problems(path))


def test_wallet_and_network_must_agree_with_the_profile(tmp_path):
    other = str(Keypair().pubkey())
    path = write_launch(tmp_path, wallet=other, network="solana-devnet")
    found = problems(path, network=Network.MAINNET, pinned_network=True)
    assert any(f"wallet: is {other}, but the profile's key is {WALLET}" in p for p in found)
    assert any(
        "network: is solana-devnet, but the profile sends to solana-mainnet" in p for p in found
    )


def test_unknown_fields_in_raw_allocations_are_flagged(tmp_path):
    raw = launch_document("raw")
    raw["allocations"][1]["raydiumV2"] = {"fee": 1}
    raw["allocations"][0]["supplyy"] = 3
    path = tmp_path / "raw.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    found = problems(path)
    assert any("allocations[1].raydiumV2.fee: is not a known field" in p for p in found)
    assert any("allocations[0].supplyy: is not a known field" in p for p in found)


def test_the_examples_validate_and_the_schema_is_current():
    assert len(launch_files(CONFIGS)) == 9  # profiles.yaml is not a launch file
    for path in launch_files(CONFIGS):
        assert load_launch(path).key
    committed = json.loads((CONFIGS / "launch.schema.json").read_text())
    assert committed == json.loads(json.dumps(schema())), (
        "run: launchops schema --out configs/launch.schema.json"
    )


BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _validate_bounded(target: Path) -> subprocess.CompletedProcess:
    """`launchops validate TARGET` with 1 GB of memory at most and a minute to answer."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [sys.executable, "-m", "launchops.cli", "validate", str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
    )


def test_yaml_anchors_and_aliases_are_refused_not_expanded(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMB)
    run = _validate_bounded(bomb)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert f"{bomb}:1: (file): " in run.stderr and "anchor" in run.stderr
    doc = launch_document()
    aliased = tmp_path / "aliased.yaml"
    text = yaml.safe_dump(doc, sort_keys=False).replace("fundsRecipient: ", "fundsRecipient: *r #")
    aliased.write_text("x: &r " + RECIPIENT + "\n" + text)
    with pytest.raises(LaunchFileError, match=r"aliased.yaml:1: .*anchors and aliases"):
        load_launch_file(aliased, wallet=Keypair().pubkey())


def test_only_the_size_limit_is_ever_read(tmp_path):
    run = _validate_bounded(Path("/dev/zero"))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "/dev/zero: (file): is larger than 1000000 bytes" in run.stderr
