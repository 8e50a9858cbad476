"""pbp-dice: a Discord dice bot for play-by-post tabletop role-playing games."""
