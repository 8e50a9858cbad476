"""Outcomes → Discord embeds and text, in one place, for Discord and the offline table alike.

Renderers take the services' views and the rules engine's outcomes and never query or
change anything; they also keep every message within Discord's limits by summarising.
"""
