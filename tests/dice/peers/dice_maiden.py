"""Dice Maiden (github:Humblemonk/DiceMaiden), written by hand: its engine is Ruby (DiceBag),
so each expression's meaning is worked out from its README with forced dice.

Each entry: the expression as typed after ``/roll``, where it comes from (file:line), and
either ``cases`` (faces forced in roll order -> the total, or totals for several rolls, that
Dice Maiden's README describes) or None when pbp-dice refuses it (the test checks it does).
"""

from __future__ import annotations

from typing import Any

R = "README.md"
T = "test/dice_maiden_test.rb"

# (expression, source, cases or None)
ENTRIES: list[tuple[str, str, list[tuple[tuple[int, ...], Any]] | None]] = [
    ("2d6", f"{R}:36", [((3, 4), 7)]),
    ("1d20+5", f"{R}:37", [((12,), 17)]),
    ("3d6 + 5", f"{R}:75", [((1, 2, 3), 11)]),
    ("1d20 - 2", f"{R}:76", [((12,), 10)]),
    ("2d4 * 3", f"{R}:77", [((1, 4), 15)]),
    ("4d6 / 2", f"{R}:78", [((1, 2, 3, 5), 5)]),  # Ruby integer division rounds down
    ("6 4d6", f"{R}:84", [(tuple([1, 2, 3, 4] * 6), [10] * 6)]),  # six sets of 4d6
    ("4d100 ; 10d6 e6 k8 +4; 3d10 k2; ul 3d100", f"{R}:85", None),  # ul: a display option
    (
        "4d100 ; 10d6 e6 k8 +4; 3d10 k2",
        f"{R}:85",
        [((1, 2, 3, 4, *[1] * 10, 5, 6, 7), [10, 12, 13])],
    ),
    ("4d6 s", f"{R}:93", [((1, 2, 3, 4), 10)]),  # s: display only (here: sorted)
    ("4d6 nr", f"{R}:94", None),
    ("4d6 p", f"{R}:95", None),  # private: /roll's secret option
    ("4d6 ! Damage roll", f"{R}:96", [((1, 2, 3, 4), 10)]),
    ("4d6 ! unsort", f"{R}:97", [((1, 2, 3, 4), 10)]),
    ("3d6 e6", f"{R}:116", [((6, 1, 1, 6), 14), ((2, 2, 2), 6)]),  # explodes once
    ("3d6 e", f"{R}:117", [((6, 1, 1, 6), 14)]),
    ("3d6 ie6", f"{R}:120", [((6, 1, 1, 6, 2), 16)]),  # explodes again and again
    ("3d6 ie", f"{R}:121", [((6, 1, 1, 6, 2), 16)]),
    ("4d6 k3", f"{R}:126", [((1, 5, 2, 6), 13)]),
    ("4d6 kl3", f"{R}:129", [((1, 5, 2, 6), 8)]),
    ("4d6 d1", f"{R}:132", [((1, 5, 2, 6), 13)]),
    ("4d6 r2", f"{R}:139", [((2, 5, 1, 6, 2, 1), 14)]),  # dice <= 2 rerolled once
    ("4d6 ir2", f"{R}:142", [((2, 5, 1, 6, 2, 3, 4), 18)]),  # until above 2
    ("6d10 t7", f"{R}:147", [((7, 8, 2, 10, 1, 6), 3)]),
    ("5d10 t8 f1", f"{R}:148", [((8, 1, 9, 1, 3), 0)]),
    ("4d6 b1", f"{R}:151", None),  # botches: not supported
    ("10d6 e6 k8 +4", f"{R}:156", [((6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6), 22)]),
    ("wng 4d6", f"{R}:166", None),
    ("dh 4d10", f"{R}:174", None),
    ("gb 1d12+4", f"{R}:178", None),
    ("2hsn", f"{R}:185", None),
    ("4cod", f"{R}:197", None),
    ("4wod8", f"{R}:198", None),
    ("3df", f"{R}:199", [((3, 1, 2), 0), ((3, 3, 2), 2)]),  # 3d3 t3 f1: Fate dice
    ("3wh4+", f"{R}:200", None),
    ("age", f"{R}:201", None),
    ("sr6", f"{R}:202", None),
    ("dndstats", f"{R}:203", None),
    ("attack +5", f"{R}:209", None),
    ("+d20", f"{R}:217", [((4, 17), 17)]),
    ("-d20", f"{R}:218", [((4, 17), 4)]),
    ("+d%", f"{R}:219", None),
    ("dd34", f"{R}:226", None),
    ("2d%", f"{R}:227", [((50, 60), 110)]),
    ("ex5", f"{R}:238", None),
    ("snm5", f"{R}:242", None),
    ("ed1", f"{R}:258", None),
    ("d5 + d6", f"{T}:8", [((5, 6), 11)]),
    ("1d6 + 2d8 d1", f"{T}:9", None),  # a spaced modifier after several terms: refused
    ("d6", f"{T}:11", [((4,), 4)]),
    ("d5 + 2d6", f"{T}:12", [((1, 2, 3), 6)]),
    ("1d5 + d6", f"{T}:13", [((1, 2), 3)]),
    ("d5 + d6 d1", f"{T}:14", None),  # drops the only d6: refused (nothing left to keep)
    ("d20 d1", f"{T}:15", None),
    ("3 +d20", "README.md:84 with :217 (N sets of +d20)", [((1, 20, 5, 4, 9, 9), [20, 5, 9])]),
    ("2 d6", "README.md:84 (N sets of XdY)", [((3, 4), [3, 4])]),
]
