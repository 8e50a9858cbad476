"""The suite's fixtures, registered once from their one home, ``tests/fixtures/``.

Each module there builds one kind of thing (databases, the SimCord table, campaigns, …); no
other conftest.py and no test module defines a fixture (tests/test_suite_layout.py).
"""

from __future__ import annotations

from simcord.env import Env

# SimCord (3.2) looks again at a settling bot every `idle` seconds, 50 ms by default. When all
# that is left is the done-callbacks of a task that just finished, while other tasks wait
# parked (the game clock's loop, a view's expiry), it sits out the whole interval: a few
# thousand times a run, a third of the time of a test that plays hundreds of commands. Looking
# every 2 ms keeps every rule of settling and its deadline, and costs no measurable CPU.
Env._settle_internal.__kwdefaults__["idle"] = 0.002

# A module imported by another comes first, so pytest registers (and rewrites the asserts of)
# each before anything imports it.
pytest_plugins = [
    "tests.fixtures.databases",
    "tests.fixtures.migrations",
    "tests.fixtures.systems",
    "tests.fixtures.table",
    "tests.fixtures.places",
    "tests.fixtures.campaigns",
    "tests.fixtures.commands",
    "tests.fixtures.budgets",
    "tests.fixtures.dice",
    "tests.fixtures.play",
    "tests.fixtures.process",
    "tests.fixtures.packaging",
]
