"""The storage tier: one module per kind of stored thing, with its atomic statements.

These modules know tables, not people: their functions take ids and values (never a
:class:`~bot.services.kit.context.Caller`), check nothing about who asks, and change counters
with single atomic statements (``UPDATE ... WHERE <still allowed> RETURNING``,
``DELETE ... RETURNING``), so any use case can combine them in one transaction through their
``_in`` building blocks. The use cases in the other areas of :mod:`bot.services`
(``sheets``, ``fortune_table``, ``checks``, ``secrecy``...) decide permissions and visibility,
then call them; nothing here imports a use case.

- :mod:`.ledger`: the append-only roll ledger (the one way to record a roll, its chain).
- :mod:`.campaigns`: campaigns and their settings.
- :mod:`.characters`: characters, scores, proficiencies, AC loss.
- :mod:`.fortune`: fortune dice (Pen & Dagger ruling 6), each change with its ledger row.
- :mod:`.pending`: carry-over modifiers (threshold ruling 4) and what a reveal stores.
- :mod:`.bot_state`: small key/value facts shared by every shard process.
"""
