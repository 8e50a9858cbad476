"""The suite's fixtures, registered once from their one home, ``tests/fixtures/``.

Each module there builds one kind of thing (databases, the SimCord table, campaigns, …); no
other conftest.py and no test module defines a fixture (tests/test_suite_layout.py).
"""

from __future__ import annotations

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
