"""Clarifications in random small contests (Hypothesis), in the style of test_serve_visibility.py's property:
teams ask (about a problem or not, some about an answer they saw), the jury answers with every mix of
recipients (the asking team, everyone, another team, two teams, a group) and announces, the clock moves
across the start and the end. For every role, the API (collection and items), the event feed, the pages
(the team's list and header count, the jury's list) and the contest package show the same clarifications,
exactly those docs/serve.md allows, each as that viewer may see it (an oracle written from the rules, not
from visibility.py): a team never sees another team's question, nor which other teams got an answer;
``reply_to_id`` only to whoever sees the question; an answer to everyone quotes the question's text."""

from __future__ import annotations

import asyncio
import io
import json
import re
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from serve_channels import Browser, LoopApi, folded, log_in
from serve_fixtures import HOUR, T0, FakeClock, feed, make_server, write_contest
from test_serve_clarifications import VALIDATOR, write_groups

from judge.serve.model.clarification import quoted
from judge.serve.site.server import Server

START, END = T0, T0 + 5 * HOUR
C = "/api/contests/test"
TEAMS = ("team1", "team2", "team3")
STAFF = ("judge", "admin")
USERS: tuple[str | None, ...] = (None, *TEAMS, *STAFF)
GROUPS = {"g": TEAMS, "pair": ("team1", "team2")}  # write_groups
QUESTIONS_PER_WINDOW, WINDOW_S = 5, 300.0  # the default clarification_limits
TARGETS = ("asker", "all", "team:team2", "team:team3", "teams:team1,team3", "group:pair", "group:g")


# ================================================================================================= the oracle


@dataclass(frozen=True)
class Sent:
    id: str
    text: str
    time_s: float
    from_team: str | None
    reach: frozenset[str] | None  # the teams it is for (a question: its team); None: everyone
    to_teams: tuple[str, ...] | None  # as sent (None: to everyone, or a question)
    reply_to: int | None  # index into Model.sent


@dataclass(frozen=True)
class Model:
    sent: tuple[Sent, ...] = ()
    read_upto: Mapping[str, int] = field(default_factory=dict)  # team -> how many of ``sent`` it has read

    def sees(self, user: str | None, c: Sent) -> bool:
        """docs/serve.md: staff all; a team its questions and what was sent to it or to everyone; the
        public what was sent to everyone."""
        if user in STAFF:
            return True
        if c.from_team is not None:
            return user == c.from_team
        return c.reach is None or user in c.reach

    def shown(self, user: str | None, c: Sent) -> dict[str, Any]:
        """What the viewer is shown of it (the properties the rules are about)."""
        replied = None if c.reply_to is None else self.sent[c.reply_to]
        link = replied is not None and self.sees(user, replied)
        quote = replied is not None and not link and replied.from_team is not None and c.reach is None
        to_teams = c.to_teams
        if to_teams is not None and user not in STAFF:
            to_teams = tuple(t for t in to_teams if t == user)  # itself only, never the other teams
        return {
            "reply_to_id": replied.id if link and replied is not None else None,
            "text": f"{quoted(replied.text)}\n\n{c.text}" if quote and replied is not None else c.text,
            "to_team_ids": None if to_teams is None else list(to_teams),
            "from_team_id": c.from_team,
        }

    def visible(self, user: str | None) -> list[Sent]:
        return [c for c in self.sent if self.sees(user, c)]

    def asked_recently(self, team: str, now: float) -> int:
        return sum(1 for c in self.sent if c.from_team == team and c.time_s > now - WINDOW_S)


# ================================================================================================= the actions


@dataclass(frozen=True)
class Advance:
    minutes: int


@dataclass(frozen=True)
class Ask:
    team: str
    about_sum: bool
    follow_up: int | None  # about the n-th clarification the team sees (None: a new question)


@dataclass(frozen=True)
class Answer:
    pick: int  # which question
    to: str  # one of TARGETS


@dataclass(frozen=True)
class Announce:
    to: str  # one of TARGETS but "asker"
    about_sum: bool


@dataclass(frozen=True)
class Check:
    pass


Action = Advance | Ask | Answer | Announce | Check
ACTION_KINDS: dict[str, st.SearchStrategy[Action]] = {
    "advance": st.builds(Advance, st.sampled_from([1, 30, 120])),
    "ask": st.builds(Ask, st.sampled_from(TEAMS), st.booleans(), st.one_of(st.none(), st.integers(0, 10))),
    "answer": st.builds(Answer, st.integers(0, 10), st.sampled_from(TARGETS)),
    "announce": st.builds(Announce, st.sampled_from(TARGETS[1:]), st.booleans()),
    "check": st.just(Check()),
}
WEIGHTED = ["ask"] * 3 + ["answer"] * 3 + ["announce", "advance", "advance", "check"]
ACTIONS = st.sampled_from(WEIGHTED).flatmap(ACTION_KINDS.__getitem__)
START_MINUTES = st.one_of(st.sampled_from([-5, 30, 295]), st.integers(-60, 320))


@dataclass(frozen=True)
class World:
    server: Server
    clock: FakeClock
    api: LoopApi
    pages: Mapping[str | None, Browser]


def recipients(to: str, asker: str | None) -> tuple[dict[str, Any], frozenset[str] | None, tuple[str, ...] | None]:
    """A target as the POST body's properties, the teams it reaches, and the to_team_ids it has."""
    kind, _, which = to.partition(":")
    if kind == "all":
        return {}, None, None
    if kind == "asker":
        assert asker is not None
        return {"to_team_ids": [asker]}, frozenset((asker,)), (asker,)
    if kind in ("team", "teams"):
        teams = tuple(which.split(","))
        return {"to_team_ids": list(teams)}, frozenset(teams), teams
    return {"to_group_ids": [which]}, frozenset(GROUPS[which]), ()


def act(w: World, model: Model, action: Action) -> Model:
    """Do ``action`` through the API; the model of what it did (asserting the refusals the rules say)."""
    w.clock.advance(1)
    now = w.clock.now()
    running, started = START <= now < END, now >= START
    text = f"text {len(model.sent)} <b>&\nline two"
    if isinstance(action, Advance):
        w.clock.advance(action.minutes * 60)
    elif isinstance(action, Ask):
        seen = model.visible(action.team)
        about = seen[action.follow_up % len(seen)] if action.follow_up is not None and seen else None
        body = {"text": text, **({"problem_id": "sum"} if action.about_sum else {})}
        body |= {"reply_to_id": about.id} if about is not None else {}
        r = w.api.request("POST", f"{C}/clarifications", action.team, json=body)
        limited = model.asked_recently(action.team, now) >= QUESTIONS_PER_WINDOW
        assert r.status_code == (403 if not running else 429 if limited else 201), r.text
        if r.status_code == 201:
            reply_to = None if about is None else model.sent.index(about)
            made = Sent(r.json()["id"], text, now, action.team, frozenset((action.team,)), None, reply_to)
            return replace(model, sent=(*model.sent, made))
    elif isinstance(action, Answer | Announce):
        questions = [i for i, c in enumerate(model.sent) if c.from_team is not None]
        if isinstance(action, Answer) and not questions:
            return model
        reply_to = questions[action.pick % len(questions)] if isinstance(action, Answer) else None
        asker = None if reply_to is None else model.sent[reply_to].from_team
        extra, reach, to_teams = recipients(action.to, asker)
        about = isinstance(action, Announce) and action.about_sum
        body = {"text": text, **extra, **({"problem_id": "sum"} if about else {})}
        body |= {} if reply_to is None else {"reply_to_id": model.sent[reply_to].id}
        r = w.api.request("POST", f"{C}/clarifications", "judge", json=body)
        assert r.status_code == (400 if about and not started else 201), r.text
        if r.status_code == 201:
            event(f"sent to {action.to}" + (" (an answer)" if reply_to is not None else ""))
            return replace(model, sent=(*model.sent, Sent(r.json()["id"], text, now, None, reach, to_teams, reply_to)))
    elif isinstance(action, Check):
        return check(w, model)
    return model


# ================================================================================================= the checks

ITEM = re.compile(r'<article class="clar [^"]*" id="clar-([0-9a-f]+)"')
COUNT = re.compile(r'<span class="badge" id="clar-count"[^>]*>(\d+)</span>')


def check(w: World, model: Model) -> Model:
    """Every channel, for every role, against the others and against the model. Returns the model with what
    the teams have now read (their pages were opened)."""
    api: dict[str | None, dict[str, dict[str, Any]]] = {}
    for user in USERS:
        objects = {c["id"]: c for c in w.api.get(f"{C}/clarifications", user).json()}
        api[user] = objects
        assert list(objects) == [c.id for c in model.visible(user)], user  # exactly those, in the order sent
        for c in model.visible(user):
            obj = objects[c.id]
            got = {k: obj.get(k) for k in ("reply_to_id", "text", "to_team_ids", "from_team_id")}
            assert got == model.shown(user, c), (user, obj)
            assert not list(VALIDATOR.iter_errors(obj)), obj
        events = [e for e in feed(w.api, user) if e["type"] == "clarifications"]
        assert len({e["id"] for e in events}) == len(events), user  # one version of each
        assert folded(events).get("clarifications", {}) == objects, user  # the feed: the same objects and values
    for c in model.sent[-3:]:  # by id: the same object, or a 404 for whoever does not see it
        for user in USERS:
            r = w.api.get(f"{C}/clarifications/{c.id}", user)
            assert (r.status_code, r.json() if r.status_code == 200 else None) == (
                (200, api[user][c.id]) if model.sees(user, c) else (404, None)
            ), (user, c)
    read = dict(model.read_upto)
    for team in TEAMS:
        header = w.pages[team].get("/clarifications/notice").text
        unread = [c for c in model.visible(team) if c.from_team != team and model.sent.index(c) >= read.get(team, 0)]
        m = COUNT.search(header)
        assert (int(m.group(1)) if m else 0) == len(unread), team
        page = w.pages[team].get("/clarifications?fragment=1").text
        assert ITEM.findall(page) == [c.id for c in reversed(model.visible(team))], team
        read[team] = len(model.sent)
    for staff in STAFF:
        page = w.pages[staff].get("/admin/clarifications?fragment=all").text
        assert ITEM.findall(page) == [c.id for c in reversed(model.sent)]
    archive = zipfile.ZipFile(io.BytesIO(w.pages["admin"].get("/admin/contest-package.zip").content))
    assert json.loads(archive.read("clarifications.json")) == list(api["admin"].values())
    return replace(model, read_upto=read)


SCENARIO = (
    30,
    [
        Ask("team1", True, None),
        Ask("team2", False, None),
        Answer(0, "all"),  # team1's question, to everyone: the others get its text, not its team
        Answer(1, "asker"),
        Answer(0, "teams:team1,team3"),
        Answer(1, "group:pair"),
        Announce("team:team3", True),
        Check(),
        Ask("team3", False, 0),  # about the answer to all it saw
        Answer(2, "team:team2"),
        Advance(120),
        Advance(120),
        Advance(120),  # over: questions refused, answers still go out
        Ask("team1", False, None),
        Answer(0, "group:g"),
        Announce("all", False),
    ],
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@example(*SCENARIO)
@given(start_minutes=START_MINUTES, actions=st.lists(ACTIONS, min_size=3, max_size=14))
def test_every_channel_shows_each_role_the_clarifications_the_rules_allow(
    start_minutes: int, actions: list[Action]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, asyncio.Runner() as runner:
        clock = FakeClock(T0 + start_minutes * 60)
        server = make_server(write_groups(write_contest(Path(tmp) / "contest")), clock)
        try:
            api = LoopApi(server, runner)
            w, model = World(server, clock, api, {user: log_in(api, user) for user in USERS}), Model()
            for action in actions:
                model = act(w, model, action)
            check(w, model)
        finally:
            server.close()
