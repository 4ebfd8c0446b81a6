"""Comparing one problem's sources: fingerprint each once, find the candidate pairs with an inverted index
of the fingerprints (the positions whose hash the other source has, counted by a matrix product, a chunk of
hashes at a time: memory bounded by the sources times the chunk, never by the pairs; k characters per such
position bound what a pair can score, so no pair above the threshold is left out), score the candidates in
full, keep those above the threshold (the best pair of each two owners), and group owners linked by three or
more into clusters.

Sources of earlier terms (``Source.term``) are compared with the contest's only, never among themselves;
sources of one owner (a contestant's attempts) never with each other. Each language (as Pygments lexes
it) is compared within itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judge.similarity.fingerprint import (
    Fingerprint,
    Ints,
    Params,
    covered,
    fingerprint,
    language_of,
    matched_positions,
    slices,
    to_source,
)
from judge.similarity.model import Cluster, Pair, ProblemReport, Region, Settings, Side, Skipped, Source

CHUNK_CELLS = 8 * 1024 * 1024  # float32 cells of one chunk of the incidence matrix (32 MiB)
Boilerplate = Callable[[str], Ints]  # language -> the sorted hashes to leave out


@dataclass(frozen=True)
class _Doc:
    source: Source
    fp: Fingerprint

    @property
    def owner_key(self) -> tuple[str | None, str]:
        return (self.source.term, self.source.owner)


def owner_name(term: str | None, owner: str) -> str:
    return owner if term is None else f"{term}: {owner}"


def shared_positions(docs: Sequence[_Doc], rows: int) -> tuple[Ints, Ints]:
    """(P, Q), each rows x len(docs): P[i, j] counts the kept positions of doc ``i`` (< rows) whose hash doc
    ``j`` has too, Q[i, j] those of doc ``j`` whose hash doc ``i`` has. A matched position covers at most k
    characters, so k * P[i, j] bounds what of ``i`` is found in ``j`` (compare_problem's candidates)."""
    n = len(docs)
    p = np.zeros((rows, n), dtype=np.float64)
    q = np.zeros((rows, n), dtype=np.float64)
    if rows == 0 or n < 2:
        return p.astype(np.int64), q.astype(np.int64)
    owners = np.concatenate([np.full(d.fp.unique.size, i, dtype=np.int64) for i, d in enumerate(docs)])
    hashes = np.concatenate([d.fp.unique for d in docs])
    weights = np.concatenate([d.fp.multiplicity for d in docs]).astype(np.float32)
    uniq, col, freq = np.unique(hashes, return_inverse=True, return_counts=True)
    # only hashes two sources share, one of them a row (a source of the contest), can count
    has_row = np.zeros(uniq.size, dtype=bool)
    has_row[col[owners < rows]] = True
    useful = (freq >= 2) & has_row
    keep = useful[col]
    owners, weights, col = owners[keep], weights[keep], np.cumsum(useful)[col[keep]] - 1
    width = max(1, CHUNK_CELLS // n)
    total = int(useful.sum())
    for start in range(0, total, width):
        sel = (col >= start) & (col < start + width)
        present = np.zeros((n, min(width, total - start)), dtype=np.float32)
        present[owners[sel], col[sel] - start] = 1.0
        counted = np.zeros_like(present)
        counted[owners[sel], col[sel] - start] = weights[sel]
        p += counted[:rows] @ present.T
        q += present[:rows] @ counted.T
    return np.rint(p).astype(np.int64), np.rint(q).astype(np.int64)


def _regions(source: Source, fp: Fingerprint, positions: Ints, k: int) -> tuple[Region, ...]:
    """The matched stretches of ``source``, per file, with their lines."""
    stretches = to_source(fp, slices(positions, k))
    text, starts = source.text(), source.starts()
    out: list[Region] = []
    for s, e in zip(stretches[0].tolist(), stretches[1].tolist(), strict=True):
        e = min(e, len(text))
        for (name, _), base, nxt in zip(source.files, starts, (*starts[1:], len(text)), strict=True):
            lo, hi = max(s, base), min(e, nxt)
            if lo >= hi:
                continue
            body = text[base:nxt]
            first = body.count("\n", 0, lo - base) + 1
            last = body.count("\n", 0, max(lo, hi - 1) - base) + 1
            out.append(Region(name, lo - base, hi - base, first, last))
    return tuple(out)


def _side(d: _Doc, positions: Ints, k: int, with_regions: bool) -> Side:
    sim = covered(positions, k) / d.fp.coverage if d.fp.coverage else 0.0
    regions = _regions(d.source, d.fp, positions, k) if with_regions else ()
    s = d.source
    return Side(s.id, s.owner, s.name, s.term, d.fp.language, min(1.0, sim), regions)


def _score(a: _Doc, b: _Doc, k: int) -> tuple[float, Ints, Ints]:
    pa, pb = matched_positions(a.fp, b.fp), matched_positions(b.fp, a.fp)
    sa = covered(pa, k) / a.fp.coverage if a.fp.coverage else 0.0
    sb = covered(pb, k) / b.fp.coverage if b.fp.coverage else 0.0
    return max(sa, sb), pa, pb


def _clusters(pairs: Sequence[Pair]) -> tuple[Cluster, ...]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    names = [(owner_name(p.a.term, p.a.owner), owner_name(p.b.term, p.b.owner)) for p in pairs]
    for x, y in names:
        parent[find(x)] = find(y)
    groups: dict[str, set[str]] = defaultdict(set)
    for x, y in names:
        groups[find(x)].update((x, y))
    out = []
    for members in groups.values():
        if len(members) < 3:
            continue
        ranks = tuple(i for i, (x, _y) in enumerate(names, 1) if x in members)
        out.append(Cluster(tuple(sorted(members)), ranks, max(pairs[r - 1].score for r in ranks)))
    return tuple(sorted(out, key=lambda c: (-c.max_similarity, c.members)))


def compare_problem(
    problem: str,
    sources: Sequence[Source],
    settings: Settings,
    boilerplate: Boilerplate,
    *,
    boilerplate_names: Sequence[str] = (),
    regions: bool = True,
) -> ProblemReport:
    """The report of one problem: ``sources`` of the contest (term None) and of earlier terms."""
    params = Params(settings.k, settings.window)
    groups: dict[str, list[Source]] = defaultdict(list)
    skipped: list[Skipped] = []
    texts: dict[str, str] = {}
    for s in sources:
        text = s.text()
        if not text.strip():
            skipped.append(Skipped(s.name, "empty"))
            continue
        texts[s.id] = text
        groups[language_of([n for n, _ in s.files], text)].append(s)
    found: list[tuple[float, Pair, tuple[_Doc, _Doc, Ints, Ints, int]]] = []
    compared = 0
    hashes: dict[str, Ints] = {}
    for language, members in sorted(groups.items()):
        if language not in hashes:
            hashes[language] = boilerplate(language)
        current = [s for s in members if s.term is None]
        if not current:
            continue  # earlier terms alone: nothing of the contest to compare
        docs = [_Doc(s, fingerprint(texts[s.id], language, params, hashes[language])) for s in current]
        docs += [_Doc(s, fingerprint(texts[s.id], language, params, hashes[language])) for s in members if s.term]
        n_current = len(current)
        p, q = shared_positions(docs, n_current)
        coverage = np.array([max(1, d.fp.coverage) for d in docs], dtype=np.float64)
        # an upper bound of each side's share: a pair below the threshold on both sides cannot reach it
        bound = np.maximum(params.k * p / coverage[:n_current, None], params.k * q / coverage[None, :])
        best: dict[tuple[tuple[str | None, str], tuple[str | None, str]], list[tuple[float, int, int, Ints, Ints]]] = {}
        for i, j in zip(*np.nonzero(bound >= settings.threshold), strict=True):
            i, j = int(i), int(j)
            if (j < n_current and j <= i) or docs[i].owner_key == docs[j].owner_key:
                continue
            compared += 1
            score, pi, pj = _score(docs[i], docs[j], params.k)
            if score >= settings.threshold:
                key = tuple(sorted((docs[i].owner_key, docs[j].owner_key), key=lambda o: (o[0] or "", o[1])))
                best.setdefault(key, []).append((score, i, j, pi, pj))  # type: ignore[arg-type]
        for candidates in best.values():
            candidates.sort(key=lambda t: (-t[0], docs[t[1]].source.id, docs[t[2]].source.id))
            score, i, j, pa, pb = candidates[0]
            a, b = docs[i], docs[j]
            if b.source.term is None and (a.source.name > b.source.name):
                a, b, pa, pb = b, a, pb, pa
            pair = Pair(_side(a, pa, params.k, False), _side(b, pb, params.k, False), covered(pa, params.k))
            found.append((score, pair, (a, b, pa, pb, len(candidates) - 1)))
    found.sort(key=lambda t: (-t[0], -min(t[1].a.similarity, t[1].b.similarity), t[1].a.label, t[1].b.label))
    pairs = tuple(  # the regions of the pairs listed only
        Pair(_side(a, pa, params.k, regions), _side(b, pb, params.k, regions), pair.matched_chars, others)
        for _, pair, (a, b, pa, pb, others) in found[: settings.max_pairs]
    )
    counted: Mapping[str, int] = {lang: sum(s.term is None for s in m) for lang, m in groups.items()}
    return ProblemReport(
        problem,
        sum(s.term is None for s in sources),
        sum(s.term is not None for s in sources),
        {lang: n for lang, n in counted.items() if n},
        pairs,
        _clusters(pairs),
        tuple(boilerplate_names),
        tuple(skipped),
        compared,
        max(0, len(found) - settings.max_pairs),
    )
