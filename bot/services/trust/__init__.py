"""Trust: who may see and do what, and the proofs the table can check.

Who is a GM and which campaign and character a command acts on (:mod:`.access`), which places
a caller can read (:mod:`.scope`), hidden rolls and their reveal (:mod:`.secrecy`), provably
fair dice (:mod:`.fairness`), the tamper-evident log (:mod:`.gamelog`), export and import,
privacy and erasure, and who posted a message. Builds on the kit and the shared tables
(:mod:`bot.services.store`); imports nothing from rolling or the table.
"""
