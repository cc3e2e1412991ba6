"""The contract's models accept the spec's and the notes' examples, round-trip them to the
same JSON, keep unknown fields, and reject each rule's violation naming the field."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pydantic
import pytest

from launchops.api import models as m
from launchops.api.amounts import figure, lamports, whole_tokens
from launchops.api.fields import problems_of
from launchops.errors import ModelInputError
from tests.api import examples as ex
from tests.support import docs


def problems(model: type[pydantic.BaseModel], data: Any) -> list[tuple[str, str]]:
    with pytest.raises((pydantic.ValidationError, ModelInputError)) as caught:
        model.model_validate(data)
    return problems_of(caught.value, data)


def test_a_launch_configs_errors_read_as_the_readme_writes_them():
    block = docs.section("The client library").split(
        "an error names the field and the rule:\n\n```\n", 1
    )[1]
    written = block.split("```", 1)[0].splitlines()
    launch = ex.launchpool_launch()
    launch["symbol"] = "FOURTEEN-CHARS"
    launch["allocations"][2]["supply"] = -5
    with pytest.raises(ModelInputError) as caught:
        m.LaunchConfig.model_validate(launch)
    assert sorted(str(caught.value).split("; ")) == sorted(written), caught.value
    assert isinstance(caught.value, ValueError) and "pydantic" not in str(caught.value)


@pytest.mark.parametrize(
    ("model", "example"),
    [
        (m.CreateLaunchRequest, ex.create_body()),
        (m.CreateLaunchRequest, ex.create_body(ex.presale_launch())),
        (m.CreateLaunchResponse, ex.CREATE_RESPONSE),
        (m.RegisterLaunchResponse, ex.REGISTER_RESPONSE),
        (m.TransactionResponse, ex.FUND_RESPONSE),
        (m.AgentCard, ex.AGENT_CARD),
        (m.AgentRecord, ex.AGENT_RECORD),
        (m.PaginatedAgentsResponse, ex.agents_page([ex.AGENT_RECORD])),
        (m.TokenResponse, ex.TOKEN_RESPONSE),
        (m.ErrorEnvelope, ex.ERROR_ENVELOPE),
        (m.ReadError, ex.READ_ERROR),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else "",
)
def test_examples_round_trip_to_the_same_json(model, example):
    parsed = model.model_validate(example)
    assert parsed.to_json_echo() == example
    # and again through JSON text
    assert (
        model.model_validate_json(parsed.model_dump_json(by_alias=True, exclude_unset=True))
        == parsed
    )


def test_unknown_fields_in_answers_are_kept():
    record = m.AgentRecord.model_validate(ex.AGENT_RECORD)
    assert record.model_extra == {"ownerScore": 7}
    card = m.AgentCard.model_validate(ex.AGENT_CARD)
    assert card.model_extra["provider"] == {
        "organization": "Example Labs",
        "url": "https://example.com",
    }


def test_what_the_js_client_sends_beyond_the_spec_is_modelled_and_sent_back():
    body = m.CreateLaunchRequest.model_validate(ex.create_body())
    assert body.model_extra == {} and body.build_all_tx is True
    assert body.launch.genesis_version == "v2" and body.launch.model_extra == {}
    assert body.to_wire()["launch"]["isMutable"] is True
    assert body.to_wire()["buildAllTx"] is True


def test_public_keys_are_solders_types_inside_and_strings_on_the_wire():
    from solders.pubkey import Pubkey

    body = m.CreateLaunchRequest.model_validate(ex.create_body())
    assert isinstance(body.wallet, Pubkey)
    assert body.to_wire()["wallet"] == ex.WALLET


def test_launch_defaults_follow_the_spec():
    launch = ex.launchpool_launch()
    for key in ("decimals", "supply", "network", "quoteMint", "finalize"):
        del launch[key]
    config = m.LaunchConfig.model_validate(launch)
    assert config.decimals == 6
    assert config.supply == 1_000_000_000
    assert config.network == "solana-mainnet"
    assert str(config.quote_mint) == ex.WSOL
    assert config.finalize is True
    assert config.to_wire()["quoteMint"] == ex.WSOL


def test_buckets_include_the_launchpools_liquidity_pool_flow():
    config = m.LaunchConfig.model_validate(ex.launchpool_launch())
    assert [b.name for b in config.buckets()] == [
        "Launchpool",
        "Team",
        "Creator Allocation",
        "Liquidity Pool",
    ]


LAUNCH_RULES = [
    ("name", "", "name", "must be 1 to 32 characters (got 0)"),
    ("name", "x" * 33, "name", "must be 1 to 32 characters (got 33)"),
    ("symbol", "", "symbol", "must be 1 to 10 characters (got 0)"),
    ("symbol", "TOOLONGSYMB", "symbol", "must be 1 to 10 characters (got 11)"),
    ("description", "d" * 251, "description", "must be at most 250 characters (got 251)"),
    ("image", "ftp://x/y.png", "image", "must be an http(s) URL"),
    ("image", "not a url", "image", "must be an http(s) URL"),
    ("image", "https://x.io/" + "a" * 188, "image", "must be at most 200 characters (got 201)"),
    ("network", "solana-testnet", "network", "must be 'solana-mainnet' or 'solana-devnet'"),
    ("type", "auction", "type", "must be 'launchpool', 'presale' or 'bondingCurve'"),
    ("publicKey", "0OIl" * 8, "publicKey", "characters outside base58"),
    ("publicKey", "abc", "publicKey", "of 32 bytes (got 3 characters)"),
    ("quoteMint", 42, "quoteMint", "must be a base58 public key (a string), not int"),
    ("decimals", -1, "decimals", "must be 1 to 9 (got -1)"),
    ("decimals", 10, "decimals", "must be 1 to 9 (got 10)"),
    ("decimals", 2**70, "decimals", "must be 1 to 9 (got 1.18059E+21)"),
    ("decimals", 1.5, "decimals", "must be a whole number (got 1.5)"),
    ("supply", 0, "supply", "must be 1 to 10^18 (got 0)"),
    ("supply", 10**18 + 1, "supply", "must be 1 to 10^18 (got 1000000000000000001)"),
    ("supply", 10**4000, "supply", "must be 1 to 10^18 (got 10^4000)"),
    ("supply", float("inf"), "supply", "must be a finite number (got inf)"),
    ("allocations", [], "allocations", "at least 1 item"),
    ("finalize", "maybe", "finalize", "valid boolean"),
]


@pytest.mark.parametrize(("key", "value", "field", "message"), LAUNCH_RULES)
def test_each_launch_rule_names_its_field(key, value, field, message):
    launch = ex.launchpool_launch()
    launch[key] = value
    found = problems(m.LaunchConfig, launch)
    assert any(f == field and message in msg for f, msg in found), found


def test_required_launch_fields():
    for key in ("name", "symbol", "image", "type", "allocations", "publicKey"):
        launch = ex.launchpool_launch()
        del launch[key]
        assert (key, "is required") in problems(m.LaunchConfig, launch)


def test_public_key_must_equal_wallet():
    body = ex.create_body()
    body["wallet"] = ex.RECIPIENT
    found = problems(m.CreateLaunchRequest, body)
    assert found == [("(top level)", "launch.publicKey must equal the top-level wallet")]


def test_allocation_rules_name_the_nested_field():
    launch = ex.launchpool_launch()
    launch["allocations"][2]["supply"] = -5
    launch["allocations"][1]["lockedV2"]["vesting"]["durationUnit"] = "FORTNIGHT"
    launch["allocations"][0]["launchpoolV2"]["fundFlows"][0]["recipient"] = "nope"
    found = dict(problems(m.LaunchConfig, launch))
    assert found["allocations[2].supply"] == "must be greater than 0 (got -5)"
    assert "must be 'SECOND'" in found["allocations[1].lockedV2.vesting.durationUnit"]
    key = "allocations[0].launchpoolV2.fundFlows[0].recipient"
    assert "base58" in found[key]


def test_unknown_allocation_type_is_named():
    launch = ex.launchpool_launch()
    launch["allocations"][2]["type"] = "airdropV2"
    found = problems(m.LaunchConfig, launch)
    assert found[0][0] == "allocations[2]"
    assert "unknown type 'airdropV2'" in found[0][1]


def test_allocations_over_supply_are_rejected():
    launch = ex.launchpool_launch()
    launch["allocations"][2]["supply"] = 150_000_001
    [(_, message)] = problems(m.LaunchConfig, launch)
    assert "more than the supply 1000000000" in message


def test_fund_flow_percentages_must_add_up():
    launch = ex.launchpool_launch()
    launch["allocations"][0]["launchpoolV2"]["fundFlows"][0]["percentageBps"] = 4000
    [(field, message)] = problems(m.LaunchConfig, launch)
    assert field == "allocations[0].launchpoolV2"
    assert message == "fundFlows percentageBps must add to 10000 (got 9000)"


def test_mechanic_needs_its_allocation():
    launch = ex.presale_launch()
    launch["type"] = "launchpool"
    [(_, message)] = problems(m.LaunchConfig, launch)
    assert message == "a launchpool launch needs a launchpoolV2 allocation"


def test_supply_must_fit_a_mint():
    launch = ex.presale_launch()
    launch["supply"] = 10**11  # x 10^9 is over 2^64
    [(_, message)] = problems(m.LaunchConfig, launch)
    assert "does not fit a token mint" in message


def test_the_largest_numbers_are_rules_not_overflows():
    launch = ex.launchpool_launch()
    for allocation in launch["allocations"]:
        allocation["supply"] = 10**18
    [(field, message)] = problems(m.LaunchConfig, launch)
    assert (field, message) == (
        "(top level)",
        "allocations (with their liquidity-pool supply) add up to 3000000000250000000 tokens, "
        "more than the supply 1000000000",
    )
    for key, value, field, unit in (
        ("durationValue", 101, "vesting", "YEAR"),
        ("cliff", 1201, "vesting.cliff", "MONTH"),
    ):
        launch = ex.launchpool_launch()
        vesting = launch["allocations"][1]["lockedV2"]["vesting"]
        if key == "cliff":
            vesting["cliff"]["durationValue"] = value
        else:
            vesting[key] = value
        [(where, message)] = problems(m.LaunchConfig, launch)
        assert where == f"allocations[1].lockedV2.{field}"
        assert message == f"durationValue {value} {unit} is longer than 100 years"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "0"),
        (-5, "-5"),
        (999_999, "999999"),
        (10**6, "10^6"),
        (10**400, "10^400"),
        (2**80, "1.20893E+24"),
        (1e300, "1e+300"),
        (0.5, "0.5"),
        (float("nan"), "nan"),
    ],
)
def test_figures_in_messages(value, shown):
    assert figure(value) == shown


def test_whole_tokens_are_exact():
    assert whole_tokens(800_100_000_000_000, 9) == "800100"
    assert whole_tokens(15, 1) == "1.5"
    assert whole_tokens(10**400, 9) == "1" + "0" * 391


def test_register_network_must_match_the_launch():
    found = problems(
        m.RegisterLaunchRequest,
        {"genesisAccount": ex.GENESIS, "network": "solana-mainnet", "launch": ex.presale_launch()},
    )
    assert "differs from launch.network solana-devnet" in found[0][1]


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (0, "must be a positive amount of SOL (got 0)"),
        (-1, "must be a positive amount of SOL (got -1)"),
        ("0.0000000001", "has more than 9 decimals"),
        ("abc", "must be an amount of SOL"),
        (True, "must be an amount of SOL"),
        ("1e30", "larger than any SOL balance"),
        ("1e999999999", "larger than any SOL balance"),  # was decimal.Overflow: a 500
        ("1e-999999999", "has more than 9 decimals"),  # was taken as 0 lamports
        ("0.0000000000000000000000000000001", "has more than 9 decimals"),
        ("1.0000000000000000000000000000000000001", "has more than 9 decimals"),
        (10**5000, "larger than any SOL balance"),
    ],
    ids=lambda v: v[:16] if isinstance(v, str) else str(v)[:16] if abs(v) < 10**99 else "huge",
)
def test_fund_amount_rules(amount, message):
    found = dict(problems(m.FundRequest, {"sender": ex.WALLET, "amount": amount, "memo": "hi"}))
    assert message in found["amount"]


def test_fund_memo_is_1_to_256_characters():
    for memo, got in (("", 0), ("m" * 257, 257)):
        found = dict(problems(m.FundRequest, {"sender": ex.WALLET, "amount": 1, "memo": memo}))
        assert found["memo"] == f"must be 1 to 256 characters (got {got})"
    assert ("memo", "is required") in problems(m.FundRequest, {"sender": ex.WALLET, "amount": 1})


def test_amounts_convert_to_lamports_exactly():
    req = m.FundRequest.model_validate({"sender": ex.WALLET, "amount": "0.123456789", "memo": "x"})
    assert lamports(req.amount) == 123_456_789
    assert req.to_wire()["amount"] == 0.123456789
    req = m.WithdrawRequest.model_validate({"sender": ex.WALLET, "amount": 0.1})
    assert req.amount == Decimal("0.1")
    assert lamports(req.amount) == 100_000_000
    assert m.WithdrawRequest(sender=ex.WALLET, amount="2").to_wire()["amount"] == 2


def test_agents_query_bounds_and_boolean_strings():
    query = m.AgentsQuery(page_size=100, active_only=True, spotlight=False)
    assert query.to_params()["activeOnly"] == "true"
    assert query.to_params()["spotlight"] == "false"
    assert "pageSize" in dict(problems(m.AgentsQuery, {"pageSize": 101}))
    assert "pageSize" in dict(problems(m.AgentsQuery, {"pageSize": 0}))
    assert "page" in dict(problems(m.AgentsQuery, {"page": 0}))
    assert "sort" in dict(problems(m.AgentsQuery, {"sort": "newest"}))


def test_timestamps_keep_the_services_format():
    launch = ex.launchpool_launch()
    launch["allocations"][0]["launchpoolV2"]["depositStartCondition"]["timestamp"] = (
        "2026-03-01T02:00:00+02:00"
    )
    config = m.LaunchConfig.model_validate(launch)
    wire = config.to_wire()["allocations"][0]["launchpoolV2"]["depositStartCondition"]
    assert wire["timestamp"] == "2026-03-01T00:00:00.000Z"


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:30:00-01:00"])
def test_a_time_outside_the_calendar_in_utc_is_a_rule_not_an_overflow(when):
    launch = ex.launchpool_launch()
    launch["allocations"][0]["launchpoolV2"]["depositStartCondition"]["timestamp"] = when
    found = dict(problems(m.LaunchConfig, launch))
    assert found["allocations[0].launchpoolV2.depositStartCondition.timestamp"] == (
        f"must be a time from year 1 to 9999 in UTC (got {when!r})"
    )


def test_json_schema_is_generated():
    schema = m.LaunchConfig.model_json_schema(by_alias=True)
    assert schema["properties"]["publicKey"]["pattern"].startswith("^[1-9A-HJ-NP-Za-km-z]")
    assert schema["properties"]["name"]["maxLength"] == 32
