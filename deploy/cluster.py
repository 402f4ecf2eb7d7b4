"""A whole FusionKit cluster on loopback, from Debian's packages (docs/deploy.md): a
throwaway PostgreSQL (its own data folder, its own port), N `fusion serve` bridges that
keep their sessions in it, and nginx in front (deploy/nginx.conf). `scripts/cluster`
runs it by hand; the cluster tests (Tests/cluster) start and break it piece by piece."""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def postgres_bin() -> Path:
    """The folder of Debian's PostgreSQL server programs (initdb, pg_ctl, postgres)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise RuntimeError("no PostgreSQL server: scripts/setup installs Debian's postgresql")
    return found[-1].parent


class Postgres:
    """A PostgreSQL server of its own: a data folder under `folder`, on a free loopback
    port, with a `fusion` superuser trusted from loopback and a `fusion` database. As
    root the server runs as the `postgres` user, since PostgreSQL refuses root."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.bin = postgres_bin()
        self.user = "postgres" if os.geteuid() == 0 else None
        # As root, a folder of its own in /tmp: the `postgres` user may not enter root's
        # folders (pytest's among them). Removed by `remove`.
        self.own_folder = self.user is not None
        self.folder = Path(tempfile.mkdtemp(prefix="fusion-postgres-")) if self.own_folder else folder
        self.data = self.folder / "data"
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chmod(self.folder, 0o700)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "fusion", "--no-sync", "-E", "UTF8")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "fusion", "fusion")

    @property
    def url(self) -> str:
        return f"postgres://fusion@127.0.0.1:{self.port}/fusion"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "server.log"), "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def remove(self) -> None:
        """Stops the server and deletes its data."""
        self.stop()
        if self.own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def psql(self, sql: str) -> str:
        out = self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "fusion", "-d", "fusion", "-At", "-c", sql)
        return out.strip()

    def run(self, program: str, *args: str) -> str:
        """One of the server's programs (pgbench, say), as the server's user."""
        return self._run(program, *args)

    def _run(self, program: str, *args: str, check: bool = True) -> str:
        command = [str(self.bin / program), *args]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, cwd=self.folder, capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout


def built(variable: str, name: str, product: str) -> Path:
    """$variable when set, else `name` from the release build, else from the debug build."""
    configured = os.environ.get(variable)
    if configured:
        return Path(configured)
    for build in ("release", "debug"):
        candidate = ROOT / ".build" / build / name
        if candidate.exists():
            return candidate
    raise RuntimeError(f"no {name}: swift build --product {product} (or set {variable})")


def fusion_executable() -> Path:
    return built("FUSION", "fusion", "fusion")


def example_library() -> Path:
    return built("FUSIONKIT_LIB", "libFusionExamples.so", "FusionExamples")


class Bridge:
    """One `fusion serve` keeping its sessions in the cluster's PostgreSQL."""

    def __init__(self, journal: str, libraries: list[Path], log: Path, extra: list[str] | None = None) -> None:
        self.journal = journal
        self.libraries = libraries
        self.log = log
        self.extra = extra or []
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [str(fusion_executable()), "serve", *map(str, self.libraries), "--port", str(self.port),
                   "--journal", self.journal, *self.extra]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port)

    def signal(self, number: int) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(number)

    def kill(self) -> None:
        """kill -9: the bridge dies with whatever it was doing."""
        self.signal(signal.SIGKILL)
        self.wait()

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM, as a rolling restart sends it; the exit status."""
        self.signal(signal.SIGTERM)
        return self.wait(timeout)

    def wait(self, timeout: float = 20.0) -> int | None:
        if not self.process:
            return None
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            # Stuck: its threads' stacks go to its log before it is killed, to say where.
            if shutil.which("gdb"):
                with open(self.log, "ab") as log:
                    log.write(f"\n--- not stopped after {timeout} s; its threads:\n".encode())
                    log.flush()
                    subprocess.run(["gdb", "-p", str(self.process.pid), "-batch", "-ex", "thread apply all bt"],
                                   stdout=log, stderr=subprocess.STDOUT, timeout=60, check=False)
            self.process.kill()
            return self.process.wait()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def healthz(self) -> int:
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=3) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)


class Nginx:
    """nginx with deploy/nginx.conf, in front of the bridges."""

    def __init__(self, folder: Path, bridges: list[Bridge], port: int | None = None) -> None:
        if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
            raise RuntimeError("no nginx: scripts/setup installs Debian's nginx")
        self.folder = folder
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        servers = "\n".join(f"        server 127.0.0.1:{b.port} max_fails=0;" for b in bridges)
        text = (ROOT / "deploy" / "nginx.conf").read_text()
        text = text.replace("@DIR@", str(folder)).replace("@LISTEN@", f"127.0.0.1:{self.port}").replace("@BRIDGES@", servers)
        self.config = folder / "nginx.conf"
        self.config.write_text(text)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen(
            [nginx, "-p", str(folder), "-c", str(self.config), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=open(folder / "stderr.log", "wb"), start_new_session=True)
        wait_for_port(self.port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Cluster:
    """PostgreSQL, `bridges` bridges and nginx, in `folder` (a temporary one by default)."""

    def __init__(self, bridges: int = 3, folder: Path | None = None, libraries: list[Path] | None = None,
                 bridge_options: list[str] | None = None, port: int | None = None) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix="fusion-cluster-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o755)
        self.postgres = Postgres(self.folder / "postgres")
        self.bridges: list[Bridge] = []
        self.nginx: Nginx | None = None
        port = port or free_port()
        # Pages come from nginx's origin; nginx (on loopback) may also say so in X-Forwarded-Host.
        options = ["--public-origin", f"http://127.0.0.1:{port}", "--trusted-proxy", "127.0.0.1", *(bridge_options or [])]
        try:
            self.libraries = libraries or [example_library()]
            for n in range(bridges):
                self.bridges.append(Bridge(self.postgres.url, self.libraries, self.folder / f"bridge-{n + 1}.log", options))
            self.nginx = Nginx(self.folder / "nginx", self.bridges, port)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        assert self.nginx is not None
        return self.nginx.url

    def stop(self) -> None:
        if self.nginx:
            self.nginx.stop()
        for bridge in self.bridges:
            bridge.stop()
        self.postgres.remove()


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="scripts/cluster", description=__doc__)
    parser.add_argument("libraries", nargs="*", type=Path, help="feature libraries (default: the examples')")
    parser.add_argument("--bridges", type=int, default=3, help="how many bridges (default 3)")
    parser.add_argument("--port", type=int, default=8080, help="nginx's port on 127.0.0.1 (default 8080)")
    args = parser.parse_args(argv)
    cluster = Cluster(args.bridges, libraries=args.libraries or None, port=args.port)
    print(f"PostgreSQL: {cluster.postgres.url} (data in {cluster.postgres.folder})")
    for number, bridge in enumerate(cluster.bridges, 1):
        print(f"bridge {number}: {bridge.url} (log {bridge.log})")
    print(f"Serving at {cluster.url}/ through nginx (files in {cluster.folder}); Ctrl-C stops it all.", flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    sys.exit(main(sys.argv[1:]))
