"""Names that cannot pass for someone else's: look-alikes compared, invisible marks refused.

A character's name is what a post shows as its author, so two names that *read* the same are
one name. Names are compared by their confusables skeleton (Unicode Technical Standard #39,
section 4), as disarm's :func:`disarm.skeleton_key` builds it: NFKC, every character mapped to
its prototype by the Unicode confusables table (Cyrillic "А" is Latin "A", "𝐀" and "Ａ" are
"A", "1" and "|" are "l", "0" is "O"), case folded, invisible characters removed, to a fixed
point. TR39 also maps "m" to "rn", the one multi-letter prototype of a Latin letter that disarm
leaves out; it is added here.

Zero-width characters, joiners, bidirectional controls and other invisible or control
characters are refused outright (they make a name look like another, or reorder the text
around it), and so is any name whose skeleton is the bot's own name's.
"""

from __future__ import annotations

import hashlib
import unicodedata

import disarm

from bot.quoting import quote
from bot.services.kit.errors import InvalidValue

#: The column the skeleton is stored in holds this many characters; a longer skeleton is stored
#: as a digest of itself (equal skeletons, equal digests).
MAX_SKELETON = 64

#: Letters and symbols that draw nothing (Unicode's default-ignorable and blank characters that
#: are not in a "C" category): the Hangul fillers, the Braille blank, the Mongolian vowel
#: separator, combining grapheme joiner, variation selectors.
_INVISIBLE = (
    frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5")
    | frozenset(map(chr, range(0xFE00, 0xFE10)))
    | frozenset(map(chr, range(0xE0100, 0xE01F0)))
)

#: Unicode general categories refused in a name: controls, format characters (zero-width
#: spaces and joiners, bidi controls, soft hyphen, tags), surrogates, private use, unassigned.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def skeleton(name: str) -> str:
    """The name as a reader sees it: equal skeletons mean names that pass for each other."""
    key = disarm.skeleton_key(name, digit_policy="tr39").replace("m", "rn")
    key = " ".join(key.split())
    if len(key) > MAX_SKELETON:
        key = "#" + hashlib.sha256(key.encode()).hexdigest()[: MAX_SKELETON - 1]
    return key


def hidden_characters(name: str) -> list[str]:
    """The characters of ``name`` a name may not hold, as ``U+200B ZERO WIDTH SPACE``."""
    found: list[str] = []
    for char in name:
        if char in _INVISIBLE or unicodedata.category(char) in _REFUSED_CATEGORIES:
            label = f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed character')}"
            if label not in found:
                found.append(label)
    return found


def check_name(name: str, what: str, *, reserved: tuple[str, ...] = ()) -> str:
    """``name`` if it may be shown as someone's, else :class:`InvalidValue` saying why.

    ``reserved``: names nobody may take or imitate (the bot's own).
    """
    hidden = hidden_characters(name)
    if hidden:
        raise InvalidValue(
            f"A {what} cannot hold invisible or direction-changing characters; this one has "
            f"{', '.join(hidden[:3])}. Type the name with visible letters only. Nothing changed."
        )
    key = skeleton(name)
    if not key.strip():
        raise InvalidValue(f"A {what} needs visible letters. Nothing changed.")
    for other in reserved:
        # TR39 skeletons are of the text as cased ("I" reads as "l", "i" does not): a reserved
        # name is matched in each of its casings, as a name is matched case-insensitively.
        casings = {other, other.casefold(), other.upper(), other.title()}
        if other and (name.casefold() == other.casefold() or key in {skeleton(c) for c in casings}):
            raise InvalidValue(
                f"{quote(name)} reads as {quote(other)}, the bot's own name: posts under it "
                "would look like the bot's. Choose another name. Nothing changed."
            )
    return name
