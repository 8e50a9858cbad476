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
(:mod:`bot.services.errors`).
"""
