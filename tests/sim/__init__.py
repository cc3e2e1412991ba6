"""The simulation: every fault the world knows, composed at random from a seed, over a
batch through either driver, then the re-runs a user would make, the promise checked
after each command (`tests/sim/invariants.py`). `python -m tests.sim --help` runs it by
hand; `tests/sim/test_simulation.py` runs a fixed set of seeds in the suite."""
