"""The shared kit: what every use case leans on and that knows no feature's tables.

Errors a player can fix, who is calling (:mod:`.context`), budgets against abuse, the SQL
helpers, paged walks over a long log, the commitments' bytes, what each feature declares it
keeps about a person (:mod:`.personal`), names, the game clock's time, JSON for outcomes.
Imports nothing from the other areas of :mod:`bot.services`.
"""
