"""The similarity report's records (frozen) and their JSON, whose keys are stable (docs/similarity.md lists
them): what `judge similarity --out`, `judge grade --similarity` and `judge serve`'s jury page all show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

REPORT_VERSION = 1  # the JSON's "version": raised when a key changes meaning or goes
DEFAULT_THRESHOLD = 0.5  # tuned on the demo contest (docs/similarity.md, "The default threshold")


@dataclass(frozen=True)
class Source:
    """One submission to compare: a file, or the files of a folder submission."""

    id: str  # unique among the sources of one comparison ("alder/coins.py"; `judge serve`: the submission id)
    owner: str  # the contestant or team: a source is never compared with another of the same owner and term
    problem: str
    files: tuple[tuple[str, str], ...]  # (file name, text), in order
    term: str | None = None  # None: the contest being checked; else the earlier term it comes from (--against)
    label: str = ""  # what the report calls it (default: the id)

    @property
    def name(self) -> str:
        return self.label or self.id

    def text(self) -> str:
        """The files joined, each ending with a newline (what is fingerprinted and highlighted)."""
        return "".join(t if t.endswith("\n") else t + "\n" for _, t in self.files)

    def starts(self) -> tuple[int, ...]:
        """Where each file starts in ``text()``."""
        out, at = [], 0
        for _, t in self.files:
            out.append(at)
            at += len(t) + (0 if t.endswith("\n") else 1)
        return tuple(out)


@dataclass(frozen=True)
class Region:
    """A stretch of a source that matches the other side of its pair."""

    file: str
    start: int  # character offsets in that file, end exclusive
    end: int
    first_line: int  # 1-based, inclusive
    last_line: int

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "start": self.start,
            "end": self.end,
            "first_line": self.first_line,
            "last_line": self.last_line,
        }


@dataclass(frozen=True)
class Side:
    """One submission of a pair, as the report names it."""

    id: str
    owner: str
    label: str
    term: str | None
    language: str
    similarity: float  # the share of its fingerprinted code that is found in the other one
    regions: tuple[Region, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "label": self.label,
            "term": self.term,
            "language": self.language,
            "similarity": round(self.similarity, 4),
            "regions": [r.to_json() for r in self.regions],
        }


@dataclass(frozen=True)
class Pair:
    a: Side
    b: Side
    matched_chars: int  # filtered characters of ``a`` in a match (copydetect's token overlap)
    other_pairs: int = 0  # further pairs of the same two owners' submissions above the threshold (attempts)

    @property
    def score(self) -> float:
        """What pairs are ranked and cut by: the larger share (a small program copied whole into a big one)."""
        return max(self.a.similarity, self.b.similarity)

    @property
    def key(self) -> str:
        """Names the pair among its problem's (the jury's "reviewed" mark in `judge serve`)."""
        return f"{self.a.id}~{self.b.id}"

    def to_json(self, rank: int) -> dict[str, Any]:
        return {
            "rank": rank,
            "key": self.key,
            "similarity": round(self.score, 4),
            "matched_chars": self.matched_chars,
            "other_pairs": self.other_pairs,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
        }


@dataclass(frozen=True)
class Cluster:
    """Three or more owners linked by pairs above the threshold: shown as a group."""

    members: tuple[str, ...]  # "owner" or "term: owner", sorted
    pairs: tuple[int, ...]  # the ranks (1-based) of the pairs that link them
    max_similarity: float

    def to_json(self) -> dict[str, Any]:
        return {
            "members": list(self.members),
            "pairs": list(self.pairs),
            "max_similarity": round(self.max_similarity, 4),
        }


@dataclass(frozen=True)
class Skipped:
    source: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "reason": self.reason}


@dataclass(frozen=True)
class ProblemReport:
    problem: str
    sources: int  # of the contest being checked
    earlier: int  # of earlier terms (--against)
    languages: dict[str, int]  # group (Pygments' lexer name) -> sources of the contest in it
    pairs: tuple[Pair, ...]  # above the threshold, best first
    clusters: tuple[Cluster, ...] = ()
    boilerplate: tuple[str, ...] = ()  # what was excluded as given to everyone
    skipped: tuple[Skipped, ...] = ()
    compared: int = 0  # pairs of submissions scored in full (the rest shared too little to be candidates)
    more_pairs: int = 0  # pairs above the threshold beyond Settings.max_pairs: counted, not listed

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "sources": self.sources,
            "earlier": self.earlier,
            "languages": dict(sorted(self.languages.items())),
            "compared": self.compared,
            "more_pairs": self.more_pairs,
            "pairs": [p.to_json(i) for i, p in enumerate(self.pairs, 1)],
            "clusters": [c.to_json() for c in self.clusters],
            "boilerplate": list(self.boilerplate),
            "skipped": [s.to_json() for s in self.skipped],
        }


@dataclass(frozen=True)
class Settings:
    threshold: float = DEFAULT_THRESHOLD
    k: int = 25  # filtered characters per k-gram (copydetect's noise threshold)
    window: int = 4  # winnowing window, in k-grams
    max_pairs: int = 250  # per problem, the best ones (MOSS's -n): the rest are counted, not listed

    def to_json(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "k": self.k,
            "window": self.window,
            "max_pairs": self.max_pairs,
        }


@dataclass(frozen=True)
class Report:
    settings: Settings
    problems: tuple[ProblemReport, ...]
    engine: str = ""  # "copydetect <version>"
    terms: tuple[str, ...] = field(default_factory=tuple)  # the earlier terms compared against

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "engine": self.engine,
            "settings": self.settings.to_json(),
            "terms": list(self.terms),
            "problems": [p.to_json() for p in self.problems],
        }
