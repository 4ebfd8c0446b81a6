"""`judge serve CONTEST_DIR` (a live contest over the ICPC Contest API; `judge contest init` and `judge
contest export`: contest.py). The process around uvicorn (the log lines, the socket, the open-files limit,
uvicorn's run and the replay's): serve_run.py. See docs/serve.md."""

from __future__ import annotations

import argparse
import fcntl
import ipaddress
import os
import shutil
import socket
import stat
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO

from judge.cluster.coordinator import ClusterJudges, ClusterSpec
from judge.commands.cluster import cluster_judges, cluster_spec
from judge.commands.common import EXIT_OK, UsageError, make_environment
from judge.commands.database import engine_of
from judge.commands.defaults import FUZZ_NICENESS
from judge.commands.serve_run import _listen, _log, _open_files, _replay, _run
from judge.judging.identity import toolchain_languages
from judge.judging.prepared import Packages
from judge.judging.submission import Environment
from judge.languages.table import Language, missing_tool
from judge.package.problem import Problem
from judge.runner.api import SandboxRunner
from judge.runner.typeset import problem2pdf
from judge.serve.model.contest import ContestError, ContestInfo
from judge.serve.model.site import SiteSpec, load_site
from judge.serve.services.judging.explain_plan import ON_A_CLUSTER, LiveExplain, searches_any
from judge.serve.services.judging.judge_fn import JudgeFn
from judge.serve.services.people.accounts import Lockout, LoginLimits
from judge.serve.services.problems.statements import Typeset
from judge.serve.site.server import ServeOptions, Server, open_server
from judge.serve.site.site import SITE_DB, Site, open_site, with_course
from judge.serve.storage import DB_NAME, Engine, StorageError

LOCK_NAME = "contest.sqlite.lock"
SITE_LOCK_NAME = "site.sqlite.lock"
VERIFY_AT_ONCE = os.cpu_count() or 1  # argon2 verifications at once: the cores (services/people/accounts.py)
CLUSTER_THREADS = 256  # at most this many jobs wait on the cluster at once


MIN_LEASE_S = 2.0  # --lease: the leases are renewed every second (the contest clock's tick)


def _lock(root: Path, name: str = LOCK_NAME, *, shared: bool = False) -> IO[bytes]:
    """One server per contest (and per site): a second would judge the same jobs twice (stored once, but
    wasted). ``shared`` (--shared, issue 51): any number of shared servers, whose claims are leases in the
    database, and none that is not."""
    path = root / name
    f = os.fdopen(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600), "ab")
    try:
        fcntl.flock(f, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError:
        f.close()
        if shared:
            raise UsageError(
                f"{root}: another `judge serve` is running on this contest without --shared ({path} is locked)"
            ) from None
        raise UsageError(
            f"{root}: another `judge serve` is running on this contest ({path} is locked; several processes on "
            "one PostgreSQL database: start each with --shared)"
        ) from None
    return f


def _lockout(option: str, value: str) -> Lockout:
    """``N/SECONDS`` (or ``0``: off) of --account-lockout / --address-lockout."""
    if value.strip() == "0":
        return Lockout(0, 0.0)
    failures, sep, seconds = value.partition("/")
    try:
        lockout = Lockout(int(failures), float(seconds))
    except ValueError:
        lockout = Lockout(-1, 0.0)
    if not sep or lockout.failures < 1 or not 0 < lockout.window_s <= 86400:
        raise UsageError(f"{option} {value!r}: give N/SECONDS (e.g. 5/60: 5 failures within 60 s), or 0 for none")
    return lockout


def _trusted_proxies(value: str) -> str:
    """--forwarded-allow-ips: comma-separated addresses or networks, or ``*`` (uvicorn's syntax); "" for none."""
    entries = [e.strip() for e in value.split(",") if e.strip()]
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise UsageError(
                f"--forwarded-allow-ips: {entry!r} is not an address or a network (e.g. 127.0.0.1)"
            ) from None
    return ",".join(entries)


def _exposed(root: Path, db: str = DB_NAME) -> list[str]:
    """Warnings for the files of the contest (or the site) that hold secrets (every team's code, password
    hashes, sessions) but that other users of this machine may read (F5 of issue 27; docs/security.md)."""
    out = []
    names = (db, f"{db}-wal", f"{db}-shm", "accounts.yaml", "accounts.json")
    for path in (root / n for n in names):
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            continue
        if mode & 0o077:
            out.append(f"{path} can be read by other users of this machine (mode {mode:04o}): chmod 600 {path}")
    return out


@dataclass(frozen=True)
class _Setup:
    problems: dict[str, Problem]
    languages: dict[str, Language]
    limits: LoginLimits
    stack: ExitStack
    fuzz: bool = False  # live fuzzing asked for (--fuzz, or contest.yaml's fuzz)
    explain: bool = False  # counterexamples for rejected submissions (a contest.yaml's counterexamples not off)


@dataclass(frozen=True)
class _JudgingChoice:
    judge_fn: JudgeFn
    options: ServeOptions
    describe: str  # for the start line


def fuzz_environment(env: Environment) -> Environment:
    """The environment live fuzzing runs in: the server's sandbox, its runs (the submission, the reference,
    the validators) at FUZZ_NICENESS, never less nice than judging's, so that a real judging run wins the
    CPU from a fuzz run (docs/live-fuzzing.md)."""
    runner = env.runner
    if not isinstance(runner, SandboxRunner):
        return env
    return replace(env, runner=runner.with_niceness(max(FUZZ_NICENESS, runner.config.niceness)))


def _private_hypothesis_home(root: Path) -> None:
    """Hypothesis keeps files of its own under its home directory, by default ``.hypothesis`` in the working
    folder, readable by everyone: the constants it collects from the modules it runs, the package's
    ``fuzz.py`` among them (issue 43). Live fuzzing's go to ``CONTEST_DIR/fuzz-home``, owner-only (a
    process-wide setting of Hypothesis': made here, at the edge, once)."""
    from hypothesis.configuration import set_hypothesis_home_dir

    from judge.serve.services.judging.fuzz_jobs import HOME_DIR

    home = root / HOME_DIR
    home.mkdir(mode=0o700, exist_ok=True)
    os.chmod(home, 0o700)
    set_hypothesis_home_dir(home)


def _live_fuzz(args: argparse.Namespace, info: ContestInfo) -> bool:
    """Whether to fuzz live: --fuzz / --no-fuzz, else contest.yaml's ``fuzz``; the budget's options checked."""
    if args.fuzz_examples < 1:
        raise UsageError("--fuzz-examples must be at least 1")
    if not args.fuzz_seconds > 0:
        raise UsageError("--fuzz-seconds must be more than 0")
    return bool(info.fuzz if args.fuzz is None else args.fuzz)


def _judging(args: argparse.Namespace, spec: ClusterSpec | None, env: Environment, setup: _Setup) -> _JudgingChoice:
    """Judge here (``--jobs`` threads on this machine's sandbox) or on a Dask cluster. Live fuzzing
    (``setup.fuzz``) runs on the local judging threads only."""
    from judge.serve.services.judging.judge_fn import judges_fn, local_judge
    from judge.serve.services.judging.versions import local_tools

    problems, languages = setup.problems, setup.languages
    if spec is None:
        packages = setup.stack.enter_context(Packages(problems, env))
        options = ServeOptions(
            workers=args.jobs,
            log=_log,
            login_limits=setup.limits,
            verify_at_once=VERIFY_AT_ONCE,
            tools=local_tools(packages, env),  # package versions made while serving (issue 33)
            board_interval_s=args.board_interval,
            feed_interval_s=args.feed_interval,
        )
        describe = f"{args.jobs} judging worker(s)"
        if setup.fuzz:
            from judge.serve.services.judging.fuzz_jobs import FuzzBudget, LiveFuzz

            budget = FuzzBudget(examples=args.fuzz_examples, seconds=args.fuzz_seconds)
            options = replace(options, fuzz=LiveFuzz(fuzz_environment(env), packages, budget))
            describe += f"; live fuzzing on idle slots ({budget.examples} examples, {budget.seconds:g} s each)"
        if setup.explain:  # the searches run at the fuzzer's niceness too (docs/explain.md)
            options = replace(options, explain=LiveExplain(fuzz_environment(env), packages))
            describe += "; counterexamples for rejected submissions on idle slots"
        return _JudgingChoice(local_judge(packages, env), options, describe)
    if setup.fuzz:
        _log("note: no live fuzzing with --cluster in this version (docs/live-fuzzing.md): --fuzz is ignored")
    if setup.explain:
        _log(
            "note: counterexample searches for rejected submissions are off on a cluster (--cluster; docs/explain.md):"
            " none is queued, and those still queued are cancelled"
        )
    wanted = {lang for lid in languages for p in problems.values() for lang in toolchain_languages(lid, p, languages)}
    judges = cluster_judges(args, spec, problems, wanted, setup.stack)
    options = ServeOptions(
        workers=CLUSTER_THREADS,
        capacity=judges.slots,
        log=_log,
        login_limits=setup.limits,
        cluster_workers=judges.workers if isinstance(judges, ClusterJudges) else None,
        unsearched=ON_A_CLUSTER,  # the searches need the local pool's idle slots: open ones are cancelled
        verify_at_once=VERIFY_AT_ONCE,
        board_interval_s=args.board_interval,
        feed_interval_s=args.feed_interval,
    )
    describe = f"judging on the Dask cluster {spec.describe()} ({judges.slots()} judge slot(s) now)"
    return _JudgingChoice(judges_fn(judges, problems, languages), options, describe)


def _typesetter() -> Typeset | None:
    """problemtools' problem2pdf when it is on PATH: a PDF statement for a package without one."""
    tool = shutil.which("problem2pdf")
    return None if tool is None else partial(problem2pdf, Path(tool))


def _kind(info: ContestInfo) -> str:
    """What the start line says of the contest's type."""
    if not info.pass_fail:
        return "a score contest: ranked by total score"
    judging = "every test judged" if info.judge_all_tests else "judging stops at the first failed test"
    return f"a pass-fail contest: {info.penalty_s / 60:g} penalty minutes per rejected submission, {judging}"


def _announce(server: Server, env: Environment, judging: _JudgingChoice, sock: socket.socket) -> None:
    """The start lines: warnings, what runs, where."""
    contest, languages = server.contest, server.languages
    for w in env.runner.info.warnings:
        _log(f"WARNING: {w}")
    if not contest.accounts:
        _log("WARNING: accounts.yaml lists no accounts: nobody can log in or submit")
    for exposed in _exposed(contest.root):
        _log(f"WARNING: {exposed}")
    _log(
        f"contest {contest.info.id!r} ({_kind(contest.info)}): {len(contest.problems)} problems, "
        f"{len(contest.teams)} teams, "
        f"languages {', '.join(sorted(languages))}; {judging.describe}; database "
        f"{server.storage.where}; {server.judging.pending()} submission(s) waiting to be judged"
    )
    if server.fuzz is not None:
        fuzzable = ", ".join(sorted(server.judging.fuzzable)) or "none (no package has a fuzz.py)"
        _log(f"live fuzzing: problems {fuzzable}")
    missing = [p.id for p in contest.problems if server.statements.files(p.problem).pdf is None]
    if missing:
        how = (
            "typeset with problem2pdf in the background"
            if server.statements.typesets
            else "not found (problemtools' problem2pdf is not installed): the API serves their Markdown statement"
        )
        _log(f"statements: the PDF of {', '.join(missing)} {how}")
    for changed in server.changed_packages():
        _log(f"note: package {changed}: rejudge with POST /api/contests/{contest.info.id}/problems/<id>/rejudge")
    host, port = sock.getsockname()[:2]
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    _log(f"pages at {base}/ , API at {base}/api (plain HTTP: put a TLS proxy in front on a network)")


def _announce_site(site: Site, env: Environment, judging: _JudgingChoice, sock: socket.socket) -> None:
    """The start lines of a site: warnings, each contest, what runs, where."""
    for w in env.runner.info.warnings:
        _log(f"WARNING: {w}")
    if not site.spec.people.accounts:
        _log("WARNING: the site's accounts.yaml lists no accounts: nobody can log in or submit")
    for exposed in _exposed(site.spec.root, SITE_DB):
        _log(f"WARNING: {exposed}")
    _log(
        f"site {site.name!r}: {len(site.contests())} contests, {len(site.spec.people.teams)} teams; "
        f"{judging.describe} for all of them; database {site.storage.where}"
    )
    for c in site.contests():
        contest = c.server.contest
        _log(
            f"contest {contest.info.id!r} ({_kind(contest.info)}): {len(contest.problems)} problems, "
            f"{len(contest.teams)} teams taking part, judging priority {c.priority}"
            f"{', hidden' if c.hidden else ''}{', archived' if c.archived else ''}; database "
            f"{c.server.storage.where}; {c.server.judging.pending()} submission(s) waiting to be judged"
        )
        for exposed in _exposed(contest.root):
            _log(f"WARNING: {exposed}")
        for changed in c.server.changed_packages():
            _log(
                f"note: contest {contest.info.id!r}: package {changed}: rejudge with "
                f"POST /api/contests/{contest.info.id}/problems/<id>/rejudge"
            )
    if site.lti is not None:  # issue 48 (docs/course.md "The course in your LMS (LTI 1.3)")
        urls = site.lti.config.urls()
        names = ", ".join(p.name for p in site.lti.config.platforms) or "none yet"
        _log(
            f"LTI 1.3: platforms {names}; login {urls['login']}, launch {urls['launch']}, keys {urls['jwks']} "
            f"(the tool's key: {site.spec.root / 'lti-key.pem'}); admins: /site/lti"
        )
    host, port = sock.getsockname()[:2]
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    _log(
        f"pages at {base}/ (each contest at /contests/<id>/), API at {base}/api "
        "(plain HTTP: put a TLS proxy in front on a network)"
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from judge.serve.http.app import create_app

    if args.replay is not None:
        return _replay(args)
    if args.contest_dir is None:
        raise UsageError("give CONTEST_DIR (or --replay ARCHIVE)")
    cluster = cluster_spec(args) if args.cluster else None
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.request_threads < 1:
        raise UsageError("--request-threads must be at least 1")
    if args.lease < MIN_LEASE_S:
        raise UsageError(f"--lease {args.lease:g}: at least {MIN_LEASE_S:g} seconds (a lease is renewed every second)")
    proxies = _trusted_proxies(args.forwarded_allow_ips)
    limits = LoginLimits(
        _lockout("--account-lockout", args.account_lockout), _lockout("--address-lockout", args.address_lockout)
    )
    try:
        site_spec = load_site(Path(args.contest_dir), Path(args.problems) if args.problems else None)
    except ContestError as exc:
        raise UsageError(str(exc)) from None
    engine = engine_of(args, _log)
    if not site_spec.single:
        return _serve_site(args, site_spec, cluster, proxies, limits, engine)
    contest = site_spec.contests[0]
    fuzz = _live_fuzz(args, contest.info)
    explain = searches_any(contest)
    lock = _lock(contest.root, shared=engine.shared)
    sock = _listen(args.host, args.port)
    _open_files(len(contest.teams))
    # On a cluster the workers judge, each after its own self-test; a local cluster's workers share this
    # machine, so its self-test comes first.
    env = make_environment(args, check=cluster is None or cluster.local_workers > 0, niceness=args.judge_nice)
    languages = {lid: lang for lid, lang in env.languages.items() if missing_tool(lang, env.tools) is None}
    with ExitStack() as stack:
        problems = {p.id: p.problem for p in contest.problems}
        judging = _judging(args, cluster, env, _Setup(problems, languages, limits, stack, fuzz, explain))
        options = replace(judging.options, typeset=_typesetter(), engine=engine, lease_s=args.lease)
        if judging.options.fuzz is not None or judging.options.explain is not None:
            _private_hypothesis_home(contest.root)
        try:
            server = with_course(open_server(contest, languages, judging.judge_fn, options), site_spec)
        except (ContestError, StorageError) as exc:
            raise UsageError(str(exc)) from None
        _announce(server, env, judging, sock)
        app = create_app(server, background=True, request_threads=args.request_threads)
        try:
            _run(app, args, proxies, sock, stack, server.begin_stop)
        finally:
            server.close()
            lock.close()
    return EXIT_OK


def _serve_site(
    args: argparse.Namespace,
    spec: SiteSpec,
    cluster: ClusterSpec | None,
    proxies: str,
    limits: LoginLimits,
    engine: Engine,
) -> int:
    """`judge serve SITE_DIR`: every contest of the site (issue 44), one judging pool, the site's people."""
    from judge.serve.http.site_app import create_site_app

    fuzz = any(_live_fuzz(args, c.info) for c in spec.contests)
    explain = any(searches_any(c) for c in spec.contests)
    locks = [_lock(spec.root, SITE_LOCK_NAME, shared=engine.shared)]
    try:
        # a contest of the site is not served alone meanwhile
        locks += [_lock(c.root, shared=engine.shared) for c in spec.contests]
        sock = _listen(args.host, args.port)
        _open_files(len(spec.people.teams))
        env = make_environment(args, check=cluster is None or cluster.local_workers > 0, niceness=args.judge_nice)
        languages = {lid: lang for lid, lang in env.languages.items() if missing_tool(lang, env.tools) is None}
        with ExitStack() as stack:
            problems = {p.id: p.problem for c in spec.contests for p in c.problems}
            judging = _judging(args, cluster, env, _Setup(problems, languages, limits, stack, fuzz, explain))
            options = replace(judging.options, typeset=_typesetter(), engine=engine, lease_s=args.lease)
            if judging.options.fuzz is not None or judging.options.explain is not None:
                _private_hypothesis_home(spec.root)
            try:
                site = open_site(spec, languages, judging.judge_fn, options)
            except (ContestError, StorageError) as exc:
                raise UsageError(str(exc)) from None
            _announce_site(site, env, judging, sock)
            app = create_site_app(site, background=True, request_threads=args.request_threads)
            try:
                _run(app, args, proxies, sock, stack, site.begin_stop)
            finally:
                site.close()
    finally:
        for lock in locks:
            lock.close()
    return EXIT_OK
