"""Paths a user gets wrong: a folder where a file goes, a path that is not there, an
`--out` that cannot be written, a home that cannot hold a profile's state, a key file
that is not a key, a kept chain or a journal that is not a database. Each is one line
naming the path and what to give instead, before anything runs, never a traceback; a
result that cannot be written after its launch landed says so and where the journal
keeps it."""

from __future__ import annotations

import json

from tests.support.pipeline import (
    embedded_env,
    launchops,
    no_service_env,
    profile_env,
    write_launch,
)


def _one_line(done, exits: int) -> str:
    assert done.returncode == exits, (done.args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: "), line
    return line


def test_a_folder_where_a_file_goes_is_refused_saying_what_to_give(tmp_path):
    folder = tmp_path / "launches"
    launch = write_launch(folder, key="wrong-paths")
    env = no_service_env(tmp_path / "home")
    said = _one_line(launchops(env, "launch", str(folder)), 2)
    assert f"{folder} is a folder, not a launch file; launchops batch {folder}" in said
    said = _one_line(launchops(env, "agents", "fund-batch", str(folder)), 2)
    assert f"{folder} is a folder, not a funding list" in said
    for command in (["launch", str(launch)], ["resume", "wrong-paths"], ["schema"]):
        said = _one_line(launchops(env, *command, "--out", str(folder)), 2)
        assert f"--out {folder} is a folder; give a file path, such as {folder}/" in said
    said = _one_line(launchops(env, "launch", str(launch), "--out", "/proc/none/r.json"), 2)
    assert "--out /proc/none/r.json: its folder cannot be made" in said
    missing = tmp_path / "no-such-folder"
    said = _one_line(launchops(env, "deploy", "--launches", str(missing), "--serve"), 2)
    assert said == f"error: --launches {missing}: no such launch file or folder"
    said = _one_line(launchops(env, "deploy", "--batch", str(missing), "--serve"), 2)
    assert said == f"error: --batch {missing}: no such launch file or folder"
    said = _one_line(launchops(env, "deploy", "--claim-wallets", str(missing), "--serve"), 2)
    assert said == f"error: --claim-wallets {missing}: no such wallets list (a YAML file)"
    said = _one_line(launchops(env, "rewards", "claim", "--wallets", str(missing)), 2)
    assert said == f"error: --wallets {missing}: no such wallets list (a YAML file)"
    said = _one_line(launchops(env, "rewards", "claim", "--wallets", str(folder)), 2)
    assert f"{folder} is a folder, not a wallets list" in said
    said = _one_line(launchops(env, "batch", str(launch), str(missing)), 2)
    assert said == f"error: no such launch file or folder: {missing}"
    (empty := tmp_path / "empty").mkdir()
    said = _one_line(launchops(env, "batch", str(empty)), 2)
    assert said == f"error: no launch files (*.yaml, *.yml) in {empty}"
    said = _one_line(launchops(env, "agents", "mint", str(folder)), 2)
    assert f"{folder} is a folder, not an agent file" in said
    assert not (tmp_path / "home" / "sandbox" / "journal.db").exists()  # nothing ran


def test_a_home_that_cannot_hold_the_profile_is_named(tmp_path):
    launch = write_launch(tmp_path, key="home-is-a-file")
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("a file, not a folder\n")
    for command in (["launch", str(launch)], ["validate", str(launch)], ["status"]):
        done = launchops(no_service_env(not_a_folder), *command)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.splitlines() == [
            "error: invalid input",
            f"  profile sandbox: state_dir: {not_a_folder}/sandbox cannot be made a folder (Not "
            "a directory); set LAUNCHOPS_HOME, or the profile's state_dir, to a folder "
            "launchops can write",
        ]


def test_a_key_that_cannot_be_read_is_the_error_not_the_wallet_it_would_give(tmp_path):
    launch = write_launch(tmp_path / "launches", key="key-is-a-folder")
    env = {**no_service_env(tmp_path / "home"), "LAUNCHOPS_KEYPAIR": f"file:{tmp_path}"}
    said = _one_line(launchops(env, "launch", str(launch)), 2)  # refused: nothing sent
    assert said == f"error: cannot read keypair file {tmp_path}: Is a directory"
    checked = launchops(env, "validate", str(launch))  # the file's own rules still checked
    warning, rule, count = checked.stderr.splitlines()
    assert checked.returncode == 1 and count == "0 valid, 1 invalid", checked.stderr
    assert warning == (
        f"warning: cannot read keypair file {tmp_path}: Is a directory; files without "
        "wallet: are checked as if no key were known"
    )
    assert rule.endswith("wallet: is required when no profile key is known (give wallet:)")


def test_a_result_that_cannot_be_written_after_the_launch_says_where_it_is_kept(sandbox, tmp_path):
    launch = write_launch(tmp_path, key="result-on-a-full-disk")
    env = profile_env(sandbox, tmp_path / "home")
    done = launchops(env, "launch", str(launch), "--no-prefect", "--json", "--out", "/dev/full")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["state"] == "registered"  # the launch itself landed
    assert done.stderr.splitlines()[-1] == (
        "error: the result could not be written to /dev/full: No space left on device (the "
        "journal keeps it: launchops status result-on-a-full-disk --json)"
    )
    kept = launchops(env, "status", "result-on-a-full-disk", "--json")
    assert json.loads(kept.stdout)["state"] == "registered"


def test_a_kept_chain_that_is_not_a_database_is_named_with_how_to_start_anew(tmp_path):
    launch = write_launch(tmp_path, key="on-a-broken-chain")
    env = embedded_env(tmp_path / "home")
    chain = tmp_path / "home" / "sandbox" / "sandbox-chain"
    chain.mkdir(parents=True)
    (chain / "sandbox.db").write_text("not a database\n")
    said = (
        f"error: the sandbox's chain in {chain} cannot be opened (file is not a database); "
        f"move that folder aside to start a new chain (mv {chain} {chain}.broken)"
    )
    for command in (["launch", str(launch), "--no-prefect"], ["sandbox", "serve"]):
        assert _one_line(launchops(env, *command, timeout=60), 1) == said
    chain.rename(f"{chain}.broken")  # as the line says: a new chain, and the launch lands
    done = launchops(env, "launch", str(launch), "--no-prefect", "--json")
    assert json.loads(done.stdout)["state"] == "registered", done.stderr


def test_a_journal_that_is_not_a_database_is_named_and_never_replaced(tmp_path):
    launch = write_launch(tmp_path, key="on-a-broken-journal")
    env = no_service_env(tmp_path / "home")
    journal = tmp_path / "home" / "sandbox" / "journal.db"
    journal.parent.mkdir(parents=True)
    journal.write_text("not a database\n")
    said = (
        f"error: the journal {journal} cannot be read: file is not a database; restore it "
        "from a backup (a new, empty journal would not know what was launched)"
    )
    for command in (["status"], ["launch", str(launch), "--no-prefect"]):
        assert _one_line(launchops(env, *command), 1) == said
    assert journal.read_text() == "not a database\n"


def test_a_missing_key_file_is_refused_saying_how_to_make_one(tmp_path):
    launch = write_launch(tmp_path / "launches", key="no-key-yet")
    missing = tmp_path / "keys" / "creator.json"
    env = {**no_service_env(tmp_path / "home"), "LAUNCHOPS_KEYPAIR": f"file:{missing}"}
    said = _one_line(launchops(env, "launch", str(launch)), 2)
    assert said == (
        f"error: cannot read keypair file {missing}: No such file or directory; make one "
        f"with solana-keygen new -o {missing} (or point the profile's keypair at yours)"
    )
