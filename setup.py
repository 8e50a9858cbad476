"""The one thing pyproject.toml cannot say: ship the top-level ``migrations/`` inside the package.

The checkout keeps Alembic's ``migrations/`` at its root (where Alembic and the project's layout
expect it); the wheel carries it as ``bot.migrations``, which ``bot/db/migrate.py`` finds with
importlib.resources, so an installed ``pbp-dice`` migrates from any directory. Everything else
is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["bot", "bot.*"]),
        "bot.migrations",
        "bot.migrations.versions",
    ],
    package_dir={"bot.migrations": "migrations"},
    package_data={"bot.migrations": ["script.py.mako"]},
)
