"""The peers corpus (docs/dice.md, "Coming from another bot"): each peer's own tests and
documented examples, read in the dialect its players would pick. Every expression means what
its origin meant, or the answer says how it was read (flagged), or it is refused with a
message naming what to type: never a silent misread.

Per-peer shares: ``.venv/bin/python -m tests.dice.peers.report``.
"""

from __future__ import annotations

import re

import pytest

from tests.dice.peers.check import PEERS, load, misreads, tally

#: Peers whose same-or-flagged share is still below 80% (docs/dice.md says why).
BELOW_TARGET = {"Avrae d20", "rpg-dice-roller", "Dice Maiden", "GNOLL"}


@pytest.mark.parametrize("peer", list(PEERS))
def test_no_peer_expression_is_silently_misread(peer):
    assert misreads(peer) == []


@pytest.mark.parametrize("peer", list(PEERS))
def test_every_expression_cites_where_it_comes_from(peer):
    entries = load(peer)
    assert len(entries) >= 60
    for entry in entries:
        assert re.search(r"\S+:\d+|§|Hypothesis", entry["source"]), entry


@pytest.mark.parametrize("peer", list(PEERS))
def test_refusals_name_what_to_type(peer):
    counts = tally(peer)
    assert counts["refused, no hint"] == 0, counts


@pytest.mark.parametrize(
    "peer",
    [
        pytest.param(
            p,
            marks=pytest.mark.xfail(strict=True, reason="below 80%: see docs/dice.md")
            if p in BELOW_TARGET
            else (),
        )
        for p in PEERS
    ],
)
def test_most_of_each_peer_reads_the_same_or_flagged(peer):
    counts = tally(peer)
    n = sum(v for k, v in counts.items() if k != "origin refuses")
    assert (counts["same"] + counts["flagged"]) / n >= 0.8, counts
