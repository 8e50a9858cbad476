"""Persistence: typed SQLAlchemy models, column types and the engine factory. No use cases here.

The use cases live in :mod:`bot.services`; nothing outside the services should import the ORM.
"""
