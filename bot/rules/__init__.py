"""The shared rules engine: the four rule systems of `shared/rules/`, as pure code.

No Discord, no database, no I/O. Every function that rolls takes a `random.Random`-compatible
source; every outcome is a small frozen value object; every check has exact odds as
`fractions.Fraction`.
"""
