"""The table: play across hours around the rolls.

Campaigns and characters as players meet them (:mod:`.sheets`), the durable scheduler and
what it delivers, turns, sealed rounds, GM roll requests, in-character posts, notices and
``/catchup``. The top area: it may use every other.
"""
