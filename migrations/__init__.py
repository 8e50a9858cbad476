"""Alembic migrations; installed as ``bot.migrations`` (see setup.py)."""
