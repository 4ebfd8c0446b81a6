"""A throwaway PostgreSQL cluster for the tests on both engines (issue 51): Debian's ``initdb`` and ``pg_ctl``
(/usr/lib/postgresql/<version>/bin, the newest; else on PATH) make one in a temporary folder, listening on
a Unix socket in that folder only (no TCP port at all), with fsync off (a test's data need not survive a
power cut); each test that asks gets a database of its own, dropped after it. PostgreSQL refuses to run as
root: as root, the cluster runs as the ``postgres`` user (Debian's package makes it), else ``nobody``,
through ``runuser``. conftest.py starts one per test session (per xdist worker) and stops it at the end.

A standby (tests/test_serve_standby.py; docs/deploy.md's recipe on one machine): ``Cluster(bindir,
primary=True)`` is a primary (``wal_level = replica``, WAL senders, ``local replication`` in its pg_hba.conf,
a durable commit: ``synchronous_commit = on``, waiting for the standby named ``STANDBY_NAME``);
``Cluster.standby_of(primary)`` is a second cluster made by ``pg_basebackup -R`` over the primary's Unix
socket, with a replication slot, streaming from it; ``crash()`` stops one as a crash would (``-m
immediate``), ``promote()`` makes the standby a primary."""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "judge"
STANDBY_NAME = "standby"  # a standby's application_name, and its replication slot's name
PORT = 5432  # the socket's name only (.s.PGSQL.5432 in the cluster's own folder): no TCP


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: Debian's newest version, else the one on PATH; None: not installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: _version(p.parent.parent.name))
    if found:
        return found[-1].parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def can_replicate(bindir: Path) -> str | None:
    """Why these binaries cannot make a streaming standby (None: they can)."""
    missing = [p for p in ("pg_basebackup", "pg_ctl", "initdb") if not (bindir / p).exists()]
    if missing:
        return f"no {', '.join(missing)} in {bindir}"
    version = _version(bindir.parent.name) if bindir.parent.parent.name == "postgresql" else ()
    if version and version < (12,):
        return f"PostgreSQL {bindir.parent.name}: a standby as docs/deploy.md makes it needs 12 or later"
    return None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(x) for x in name.split(".") if x.isdigit())


def _run_as() -> tuple[list[str], str | None]:
    """The command prefix to run PostgreSQL's programs, and the user who owns the cluster (None: us)."""
    if os.geteuid() != 0:
        return [], None
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        runuser = shutil.which("runuser")
        if runuser is None:
            raise RuntimeError("PostgreSQL does not run as root, and there is no runuser to run it as another user")
        return [runuser, "-u", user, "--"], user
    raise RuntimeError("PostgreSQL does not run as root, and there is neither a postgres nor a nobody user")


class Cluster:
    def __init__(self, bindir: Path, *, primary: bool = False, _standby_of: Cluster | None = None) -> None:
        self.bindir = bindir
        self.prefix, user = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="jpg-", dir="/tmp"))  # short: a socket's path is < 108 bytes
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.data = self.root / "data"
        self._names = itertools.count(1)
        options = f"-k {self.root} -c listen_addresses='' -p {PORT} -c shared_buffers=16MB -c max_connections=200"
        # fsync off: a test's data need not survive a power cut (a crash here is a process's: the OS keeps its writes)
        options += " -c fsync=off -c full_page_writes=off"
        if _standby_of is not None:
            self._run("pg_basebackup", "-D", str(self.data), "-h", str(_standby_of.root), "-p", str(PORT),
                      "-U", SUPERUSER, "--write-recovery-conf", "--wal-method=stream", "--create-slot",
                      f"--slot={STANDBY_NAME}", "--checkpoint=fast", "--no-sync")  # fmt: skip
            # the name the primary's synchronous_standby_names knows it by (primary_conninfo has no application_name)
            options += f" -c cluster_name={STANDBY_NAME} -c hot_standby=on -c synchronous_standby_names=''"
        else:
            self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--no-locale",
                      "--no-sync")  # fmt: skip
            if primary:
                (self.data / "pg_hba.conf").write_text(
                    f"local all {SUPERUSER} trust\nlocal replication {SUPERUSER} trust\n"
                )
                options += (
                    " -c wal_level=replica -c max_wal_senders=4 -c max_replication_slots=4 -c synchronous_commit=on"
                    f" -c synchronous_standby_names={STANDBY_NAME}"
                )
            else:
                options += " -c synchronous_commit=off"
        self._options = options
        self.start()

    @classmethod
    def standby_of(cls, primary: Cluster) -> Cluster:
        """A streaming standby of ``primary`` (a cluster made with ``primary=True``), started."""
        return cls(primary.bindir, _standby_of=primary)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-o", self._options, "start")

    def crash(self) -> None:
        """Stop as a crash would: no checkpoint, connections cut (``pg_ctl stop -m immediate``)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def promote(self) -> None:
        """A standby becomes a primary (``pg_ctl promote``, waiting until it accepts writes)."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "promote")

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [*self.prefix, str(self.bindir / program), *args], capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{dbname}?host={self.root}&port={PORT}"

    def log(self) -> str:
        return (self.root / "log").read_text(errors="replace")

    def new_database(self) -> str:
        """A new, empty database; its DSN."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.dsn(name)

    def drop(self, dsn: str) -> None:
        import psycopg

        name = db_name(dsn)
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.crash()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def db_name(dsn: str) -> str:
    """The database a ``Cluster.dsn`` names (postgresql://user@/NAME?host=...)."""
    return dsn.split("/")[3].split("?")[0]
