"""A throwaway PostgreSQL for the online server's tests and benchmark, and `bao serve` as its own process.

    why = pg_missing()                     # None, or the one line saying why there is no PostgreSQL
    with cluster() as pg:                  # BAO_TEST_PG's server if set, else initdb into a temporary folder
        url = pg.database("t1")            # a new, empty database: its postgresql:// address
    srv = Serve(port, data, db=url).start()   # `bao serve --sim 0 --db URL`; srv.kill() (SIGKILL), srv.stop()

The cluster listens on a unix socket in its own folder only (no TCP port to collide with another test run);
as root (CI) it runs as the `postgres` user, which Debian's postgresql package creates (PostgreSQL refuses
to run as root). Binaries: PostgreSQL's bin folders under /usr/lib/postgresql (Debian's), else PATH."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ENV = "BAO_TEST_PG"  # a PostgreSQL server to use instead (postgresql://USER@HOST/DB; it may create databases)


def _bindir() -> Path | None:
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def pg_missing() -> str | None:
    """None when the tests can have a PostgreSQL, else why not (one line)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "no psycopg (pip install -e '.[dev]')"
    if os.environ.get(ENV):
        return None
    if _bindir() is None:
        return f"no PostgreSQL: `make pg-deps` installs Debian's postgresql, or set {ENV}=postgresql://..."
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user to run PostgreSQL as (`make pg-deps`)"
    return None


class Cluster:
    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url

    def database(self, name: str) -> str:
        """A new, empty database (dropped first if a run before left it): its address."""
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}"')
            db.execute(f'CREATE DATABASE "{name}"')
        base, _, query = self.admin_url.partition("?")
        base = base.rsplit("/", 1)[0] + "/" + name
        return base + ("?" + query if query else "")


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


@contextlib.contextmanager
def cluster() -> Iterator[Cluster]:
    given = os.environ.get(ENV)
    if given:
        yield Cluster(given)
        return
    bindir = _bindir()
    assert bindir is not None, pg_missing()
    top = Path(tempfile.mkdtemp(prefix="bao-pg-"))
    data = top / "data"
    try:
        os.chmod(top, 0o755)
        if os.geteuid() == 0:
            shutil.chown(top, "postgres", "postgres")
        run = _as_postgres()
        subprocess.run(
            [
                *run,
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "bao",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-instructions",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        opts = f"-k {top} -c listen_addresses='' -p 5432 -c max_connections=60 -c shared_buffers=16MB"
        subprocess.run(
            [
                *run,
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(top / "log"),
                "-w",
                "-t",
                "60",
                "-o",
                opts,
                "start",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            yield Cluster(f"postgresql://bao@/postgres?host={top}&port=5432")
        finally:
            subprocess.run(
                [*run, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
    finally:
        shutil.rmtree(top, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Serve:
    """`bao serve --sim 0` as a process of its own, on the loopback (stopped, killed, started again)."""

    def __init__(self, port: int, data: Path, db: str | None = None, rate: float = 100000) -> None:
        self.port, self.data, self.db, self.rate = port, data, db, rate
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[str] | None = None
        self._starts = 0

    def start(self, timeout: float = 60.0) -> Serve:
        cmd = [
            sys.executable,
            "-m",
            "bao_host.cli",
            "serve",
            "--sim",
            "0",
            "--port",
            str(self.port),
            "--data",
            str(self.data),
            "--online-rate",
            str(self.rate),
        ]
        if self.db is not None:
            cmd += ["--db", self.db]
        self.data.mkdir(parents=True, exist_ok=True)
        with self.log.open("a") as out:  # (a file, not a pipe: a pipe nobody reads would stop the server)
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            # (the line comes as the app starts, just before the port is listened on: a connection tells)
            if self.log.read_text().count("Ctrl-C to stop") > self._starts and self._listens():
                self._starts += 1
                return self
            time.sleep(0.05)
        self.kill()
        raise AssertionError("bao serve did not start:\n" + self.log.read_text()[-3000:])

    def _listens(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return False
        return True

    @property
    def log(self) -> Path:
        """What the server printed (every start), in its data folder."""
        return self.data / f"serve-{self.port}.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """Killed at once (SIGKILL): nothing flushed, nothing closed."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(30)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
            self.proc = None
