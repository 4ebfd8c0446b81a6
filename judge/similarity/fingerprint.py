"""A source's fingerprints, MOSS-style (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003), with
copydetect's tokenizer and winnowing (docs/similarity.md).

A source (one file, or the files of a folder submission, joined) is lexed by Pygments and filtered by
copydetect (``filter_code``): names become ``V``, functions ``F``, classes ``O``, strings ``S``; whitespace and
comments go. Every k-gram of what is left is hashed and copydetect's ``winnow`` keeps the smallest hash of
each window of ``window`` k-grams. The hashes are ours, not copydetect's: it hashes with Python's ``hash()``,
which changes from one process to the next (PYTHONHASHSEED), so the same two files would score a little
differently on each run; ours are a polynomial hash of the filtered characters, mixed (SplitMix64) and cut
to 53 bits (copydetect's winnowing compares them as floats: exact below 2**53). A fingerprint remembers
where each hash was (filtered positions, and how to map them back to the source's characters), so a match
can be shown.

Boilerplate (code every contestant was given) is fingerprinted with every k-gram (no winnowing) and its
hashes are removed from the sources' fingerprints, as copydetect does: it counts neither as a match nor in
a source's size.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

Ints = npt.NDArray[np.int64]

HASH_BITS = 53
_MASK = np.uint64((1 << HASH_BITS) - 1)
_BASE = np.uint64(1_000_003)
PLAIN_TEXT = "text"  # the group of sources no lexer knows: compared as they are, characters for tokens


def _copydetect() -> tuple[Any, Any, Any]:
    """copydetect's functions, imported when first needed (its package imports matplotlib: ~0.5 s)."""
    logging.getLogger("matplotlib").setLevel(logging.WARNING)
    from copydetect.utils import filter_code, get_copied_slices, winnow

    return filter_code, winnow, get_copied_slices


@lru_cache(maxsize=1)
def copydetect() -> tuple[Any, Any, Any]:
    return _copydetect()


def lexer_for(file_name: str, text: str) -> Lexer | None:
    """Pygments' lexer for a file (its name, and its text when the name is ambiguous: ``.pl``); None: none."""
    try:
        lexer = get_lexer_for_filename(file_name, text)
    except ClassNotFound:
        return None
    return None if lexer.name == "Text only" else lexer


def language_of(file_names: Sequence[str], text: str) -> str:
    """The group a source is compared within: the lexer's name of its first file that has one (Pygments'
    ``Python``, ``C++``, ``Delphi`` for Pascal...), else PLAIN_TEXT."""
    for name in file_names:
        lexer = lexer_for(name, text)
        if lexer is not None:
            return str(lexer.name)
    return PLAIN_TEXT


@lru_cache(maxsize=64)
def _alias(language: str) -> str | None:
    """An alias of the lexer named ``language`` (what copydetect's ``filter_code`` takes)."""
    from pygments.lexers import get_all_lexers

    for name, aliases, _files, _mimes in get_all_lexers():
        if name == language and aliases:
            return str(aliases[0])
    return None


def filtered(text: str, language: str) -> tuple[str, Ints]:
    """copydetect's filtered code and its offsets (filtered index -> characters removed before it)."""
    alias = None if language == PLAIN_TEXT else _alias(language)
    if alias is None:
        return text, np.zeros((0, 2), dtype=np.int64)
    try:
        get_lexer_by_name(alias)
    except ClassNotFound:
        return text, np.zeros((0, 2), dtype=np.int64)
    filter_code = copydetect()[0]
    code, offsets = filter_code(text, "", alias)
    offsets = np.asarray(offsets, dtype=np.int64)
    return str(code), offsets.reshape(-1, 2) if offsets.size else np.zeros((0, 2), dtype=np.int64)


def kgram_hashes(doc: str, k: int) -> Ints:
    """A hash of every k-gram of ``doc`` (len(doc) - k + 1 of them; none when shorter), the same in every
    process: a polynomial hash of the code points modulo 2**64, mixed, cut to HASH_BITS."""
    n = len(doc) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(doc.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * _BASE + codes[j : j + n]
        # SplitMix64's finalizer: neighbouring k-grams get unrelated hashes (winnowing picks minima)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return (h & _MASK).astype(np.int64)


@dataclass(frozen=True)
class Params:
    """The fingerprinting's parameters (copydetect's names: ``noise_t`` is k, ``guarantee_t`` the length of a
    match that is always found: ``k + window - 1``)."""

    k: int = 25  # characters of filtered code in a k-gram (copydetect's default noise threshold)
    window: int = 4  # k-grams per winnowing window: a match of k + window - 1 filtered characters is always seen


@dataclass(frozen=True, eq=False)
class Fingerprint:
    """What one source is compared by."""

    language: str
    filtered_length: int
    hashes: Ints  # the winnowed hashes, boilerplate removed, one entry per position kept
    positions: Ints  # where each one starts in the filtered code
    offsets: Ints  # copydetect's: (filtered index, characters removed before it)
    coverage: int  # filtered characters that some kept k-gram covers (the size it is compared by)
    unique: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # sorted distinct hashes
    multiplicity: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # positions of each of them


def covered(positions: Ints, k: int) -> int:
    """How many characters the k-grams starting at ``positions`` cover together."""
    if positions.size == 0:
        return 0
    starts = np.sort(positions)
    # a k-gram adds k characters, less its overlap with the one before
    gaps = np.minimum(starts[1:] - starts[:-1], k)
    return int(k + gaps.sum())


def fingerprint(text: str, language: str, params: Params, boilerplate: Ints | None = None) -> Fingerprint:
    """The fingerprint of a source's text (its files joined) lexed as ``language``; hashes in the sorted
    array ``boilerplate`` are left out."""
    code, offsets = filtered(text, language)
    hashes = kgram_hashes(code, params.k)
    if hashes.size and params.window > 1:
        winnow = copydetect()[1]
        kept, idx = winnow(hashes, params.window, remove_duplicates=False)
        hashes, positions = np.asarray(kept, dtype=np.int64), np.asarray(idx, dtype=np.int64)
    else:
        positions = np.arange(hashes.size, dtype=np.int64)
    if boilerplate is not None and boilerplate.size and hashes.size:
        keep = ~np.isin(hashes, boilerplate)
        hashes, positions = hashes[keep], positions[keep]
    unique, multiplicity = np.unique(hashes, return_counts=True)
    cover = covered(positions, params.k)
    return Fingerprint(language, len(code), hashes, positions, offsets, cover, unique, multiplicity.astype(np.int64))


def boilerplate_hashes(texts: Iterable[str], language: str, params: Params) -> Ints:
    """Every k-gram hash of the boilerplate ``texts`` lexed as ``language``, sorted and distinct."""
    found = [kgram_hashes(filtered(t, language)[0], params.k) for t in texts]
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def matched_positions(a: Fingerprint, b: Fingerprint) -> Ints:
    """The filtered positions of ``a``'s kept k-grams whose hash ``b`` has too."""
    if a.hashes.size == 0 or b.unique.size == 0:
        return np.zeros(0, dtype=np.int64)
    at = np.searchsorted(b.unique, a.hashes)  # b.unique is sorted: a binary search each, no sort
    found = b.unique[np.minimum(at, b.unique.size - 1)] == a.hashes
    return a.positions[found]


def slices(positions: Ints, k: int) -> Ints:
    """The matched stretches of filtered code (copydetect's ``get_copied_slices``): a 2 x N array of starts
    and ends."""
    if positions.size == 0:
        return np.zeros((2, 0), dtype=np.int64)
    get_copied_slices = copydetect()[2]
    return np.asarray(get_copied_slices(positions, k), dtype=np.int64)


def to_source(fp: Fingerprint, stretches: Ints) -> Ints:
    """Filtered stretches mapped back to character offsets of the source (copydetect's own mapping)."""
    out = stretches.copy()
    if fp.offsets.shape[0] == 0 or out.size == 0:
        return out
    where = np.clip(np.searchsorted(fp.offsets[:, 0], out), 0, fp.offsets.shape[0] - 1)
    return out + fp.offsets[:, 1][where]
