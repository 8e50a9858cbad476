"""Use cases over the database: plain async functions that own their transactions.

Each public function takes the :class:`~bot.db.engine.Database` first, runs one transaction
and returns small frozen views, never ORM objects. Functions ending in ``_in`` are building
blocks that run inside a caller's transaction (they take an ``AsyncSession`` and never
commit), so a use case such as "perform a check" can read, record the roll and change counters
atomically::

    async with db.sessionmaker.begin() as session:
        campaign = await campaign_for_channel_in(session, guild_id, channel_id, parent_id)
        character = await active_character_in(session, campaign.id, user_id)
        bonus = await consume_pending_in(session, character.id, "STR")
        ...  # the rules engine decides the outcome
        # A retried interaction raises DuplicateInteraction here: the side effects roll back.
        recorded = await record_in(session, NewRoll(...))
        await gain_fortune_in(session, character.id)

User-fixable failures raise subclasses of :class:`bot.errors.UserError`
(:mod:`bot.services.kit.errors`).

The modules sit in five areas, each importing only those listed before it (tests/test_layers.py
holds this):

- :mod:`.kit`: errors, who is calling, budgets, SQL helpers, walks, commitments, personal data;
- :mod:`.store`: the shared tables (campaigns, characters, the ledger...), ids in, views out;
- :mod:`.trust`: access, scope, hidden rolls, fair dice, the log, export, privacy;
- :mod:`.rolling`: every use case that rolls, and the text of a roll;
- :mod:`.table`: campaigns and characters at the table, the clock, turns, rounds, requests, posts.
"""
