"""Run by build.py inside bench/.d20-venv: Avrae's d20 with forced dice.

Reads [{"expr", "words": [[w, ...], ...]}] on stdin; prints each expression's totals (or the
error's class name) per word sequence. d20 draws ``random.randrange(size) + 1`` (and
``randrange(0, 100, 10)`` for d%); answering ``w % size`` gives the face pbp-dice gives the
same word (``w % sides + 1``), so both engines see the same dice in the same order.
"""

import json
import sys

import d20
import d20.expression as dx


class _Words:
    def __init__(self, words):
        self.words = list(words)
        self.i = 0

    def randrange(self, start, stop=None, step=1):
        if self.i >= len(self.words):
            raise IndexError("out of forced dice")
        w = self.words[self.i]
        self.i += 1
        if stop is None:
            return w % start
        return start + (w % ((stop - start) // step)) * step


def main():
    out = []
    for item in json.load(sys.stdin):
        totals = []
        for words in item["words"]:
            dx.random = _Words(words)
            try:
                result = d20.roll(item["expr"], allow_comments=True)
                total = result.total
                totals.append(int(total) if float(total).is_integer() else float(total))
            except IndexError:
                totals.append("OutOfDice")
            except Exception as error:
                totals.append(type(error).__name__)
        out.append(totals)
    json.dump(out, sys.stdout)


main()
