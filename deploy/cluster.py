"""A whole FusionKit cluster on loopback, from Debian's packages (docs/deploy.md): a
throwaway PostgreSQL (its own data folder, its own port), N `fusion serve` bridges that
keep their sessions in it, and nginx in front (deploy/nginx.conf). `scripts/cluster`
runs it by hand; the cluster tests (Tests/cluster) start and break it piece by piece.
Optionally nginx serves https with a certificate made for the run (`tls`), and the
bridges ask for a signed-in user (`auth`: a JWT secret made for the run, and the login
app of examples/auth, which nginx serves at /login and /logout)."""
from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# Every port free_port handed out in this process, so that it never hands one out twice: a
# port is picked before its server binds it (nginx's before the bridges start, a stopped
# bridge's until it starts again on it), and the kernel may offer a port that is free at
# that moment to the next caller as well (two servers on one port: nginx proxying to itself).
_handed_out: set[int] = set()
_handed_out_lock = threading.Lock()


def free_port() -> int:
    """A loopback port nothing listens on, and that no earlier call of this process gave."""
    with _handed_out_lock:
        while True:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = int(probe.getsockname()[1])
            if port not in _handed_out:
                _handed_out.add(port)
                return port


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


class Tls:
    """A self-signed certificate for 127.0.0.1 (and localhost), made for the run with the
    openssl command in `folder`: nginx serves https with it, and a client trusts it
    (`context()`) as a browser trusts a real one. Its key never leaves the folder."""

    def __init__(self, folder: Path, days: int = 7) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        self.certificate = folder / "cert.pem"
        self.key = folder / "key.pem"
        openssl = shutil.which("openssl") or "/usr/bin/openssl"
        done = subprocess.run(
            [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-days", str(days), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
             "-keyout", str(self.key), "-out", str(self.certificate)],
            capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"openssl could not make a certificate: {done.stderr.strip()}")
        os.chmod(self.key, 0o600)

    def context(self) -> ssl.SSLContext:
        """A client's TLS context that trusts this certificate (and checks the host name)."""
        return ssl.create_default_context(cafile=str(self.certificate))


class Auth:
    """`fusion serve --auth jwt` with an HS256 secret made for the run (in `folder`, read
    by the bridges and the login app only), and tokens signed with it as a team's login
    signs them (`token`)."""

    def __init__(self, folder: Path, audience: str = "fusion") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        self.audience = audience
        self.key = folder / "jwt.key"
        self.key.write_text(secrets.token_hex(32) + "\n")  # 64 bytes: HS256 wants at least 32
        os.chmod(self.key, 0o600)

    @property
    def bridge_options(self) -> list[str]:
        """The bridges' flags: the secret, the audience, and the `name` claim passed to
        the features (the profile shows "Signed in as NAME")."""
        return ["--auth", "jwt", "--jwt-key", str(self.key), "--jwt-audience", self.audience, "--jwt-claim", "name"]

    def token(self, subject: str, name: str | None = None, lifetime: int = 3600, **claims: object) -> str:
        import jwt  # PyJWT, installed by scripts/setup; only a cluster with auth needs it

        now = int(time.time())
        payload: dict[str, object] = {"sub": subject, "aud": self.audience, "iat": now, "nbf": now,
                                      "exp": now + lifetime, **claims}
        if name is not None:
            payload["name"] = name
        return jwt.encode(payload, self.key.read_text().rstrip("\r\n"), algorithm="HS256")


class LoginApp:
    """examples/auth/login_app.py, behind nginx (which routes /login and /logout to it):
    it signs tokens with the cluster's secret and sets them in the cookie the bridges
    read, `Secure` when nginx says the page came over https (X-Forwarded-Proto)."""

    def __init__(self, auth: Auth, log: Path) -> None:
        self.port = free_port()
        self.log = log
        command = [sys.executable, str(ROOT / "examples" / "auth" / "login_app.py"), "--key", str(auth.key),
                   "--audience", auth.audience, "--port", str(self.port), "--trust-forwarded-proto"]
        with open(log, "ab") as out:
            # With the signals scripts/cluster blocks (it waits for them) unblocked, so that
            # SIGTERM stops the app.
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                            preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, set()))
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# What nginx.conf's @TLS@ and @LOGIN@ become when wanted (nothing otherwise).
TLS_BLOCK = """\
        ssl_certificate {certificate};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:fusion_tls:1m;
        ssl_session_timeout 1h;"""

LOGIN_BLOCK = """\
        location = {path} {{
            proxy_pass http://127.0.0.1:{port};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}"""


class Nginx:
    """nginx with deploy/nginx.conf, in front of the bridges; with `tls`, serving https
    with its certificate; with `login`, /login and /logout go to that app."""

    def __init__(self, folder: Path, bridges: list[Bridge], port: int | None = None, tls: Tls | None = None,
                 login: LoginApp | None = None) -> None:
        if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
            raise RuntimeError("no nginx: scripts/setup installs Debian's nginx")
        self.folder = folder
        self.port = port or free_port()
        self.tls = tls
        folder.mkdir(parents=True, exist_ok=True)
        servers = "\n".join(f"        server 127.0.0.1:{b.port} max_fails=0;" for b in bridges)
        listen = f"127.0.0.1:{self.port}" + (" ssl" if tls else "")
        tls_lines = TLS_BLOCK.format(certificate=tls.certificate, key=tls.key) if tls else ""
        login_lines = "\n".join(LOGIN_BLOCK.format(path=path, port=login.port) for path in ("/login", "/logout")) if login else ""
        text = (ROOT / "deploy" / "nginx.conf").read_text()
        text = (text.replace("@DIR@", str(folder)).replace("@LISTEN@", listen).replace("@BRIDGES@", servers)
                .replace("@TLS@", tls_lines).replace("@LOGIN@", login_lines))
        self.config = folder / "nginx.conf"
        self.config.write_text(text)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen(
            [nginx, "-p", str(folder), "-c", str(self.config), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=open(folder / "stderr.log", "wb"), start_new_session=True)
        wait_for_port(self.port)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def stop(self) -> None:
        # SIGTERM, nginx's fast shutdown: it closes the WebSockets it proxies. A graceful
        # SIGQUIT would wait for each to end by itself (a page never ends its own), and the
        # bridges behind them are stopped next anyway.
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Cluster:
    """PostgreSQL, `bridges` bridges and nginx, in `folder` (a temporary one by default).
    `tls`: nginx serves https (and wss) with a certificate made for the run. `auth`: the
    bridges take only signed-in users (a JWT secret made for the run), and `login` (by
    default when `auth`) starts the login app behind nginx's /login and /logout."""

    def __init__(self, bridges: int = 3, folder: Path | None = None, libraries: list[Path] | None = None,
                 bridge_options: list[str] | None = None, port: int | None = None, tls: bool = False,
                 auth: bool = False, login: bool | None = None) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix="fusion-cluster-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o755)
        self.bridges: list[Bridge] = []
        self.nginx: Nginx | None = None
        self.login: LoginApp | None = None
        self.tls = Tls(self.folder / "tls") if tls else None
        self.auth = Auth(self.folder / "auth") if auth else None
        if login and not self.auth:
            raise ValueError("the login app signs with the cluster's secret: login needs auth")
        self.postgres = Postgres(self.folder / "postgres")
        port = port or free_port()
        # Pages come from nginx's origin (https with TLS); nginx (on loopback) also says so
        # in X-Forwarded-Host and X-Forwarded-Proto.
        origin = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        options = ["--public-origin", origin, "--trusted-proxy", "127.0.0.1",
                   *(self.auth.bridge_options if self.auth else []), *(bridge_options or [])]
        try:
            self.libraries = libraries or [example_library()]
            for n in range(bridges):
                self.bridges.append(Bridge(self.postgres.url, self.libraries, self.folder / f"bridge-{n + 1}.log", options))
            if self.auth and login is not False:
                self.login = LoginApp(self.auth, self.folder / "login.log")
            self.nginx = Nginx(self.folder / "nginx", self.bridges, port, tls=self.tls, login=self.login)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        """nginx's origin: where pages come from (http://… or, with TLS, https://…)."""
        assert self.nginx is not None
        return self.nginx.url

    @property
    def ws_url(self) -> str:
        """The bridges' WebSocket through nginx: ws://…/ws, or wss://…/ws with TLS."""
        return self.url.replace("http", "ws", 1) + "/ws"

    def stop(self) -> None:
        if self.nginx:
            self.nginx.stop()
        if self.login:
            self.login.stop()
        # All at once: each takes a second or more (pages get a second to answer their close).
        for bridge in self.bridges:
            bridge.signal(signal.SIGTERM)
        for bridge in self.bridges:
            bridge.wait()
        self.postgres.remove()


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="scripts/cluster", description=__doc__)
    parser.add_argument("libraries", nargs="*", type=Path, help="feature libraries (default: the examples')")
    parser.add_argument("--bridges", type=int, default=3, help="how many bridges (default 3)")
    parser.add_argument("--port", type=int, help="nginx's port on 127.0.0.1 (default 8080, or 8443 with --tls)")
    parser.add_argument("--tls", action="store_true",
                        help="nginx serves https and wss, with a self-signed certificate made for the run")
    parser.add_argument("--auth", action="store_true",
                        help="the bridges take only signed-in users (--auth jwt, a secret made for the run); "
                             "the login app of examples/auth answers /login and /logout")
    args = parser.parse_args(argv)
    port = args.port or (8443 if args.tls else 8080)
    cluster = Cluster(args.bridges, libraries=args.libraries or None, port=port, tls=args.tls, auth=args.auth)
    print(f"PostgreSQL: {cluster.postgres.url} (data in {cluster.postgres.folder})")
    for number, bridge in enumerate(cluster.bridges, 1):
        print(f"bridge {number}: {bridge.url} (log {bridge.log})")
    if cluster.tls:
        print(f"TLS: a self-signed certificate for 127.0.0.1, {cluster.tls.certificate} (the browser warns once)")
    if cluster.login:
        print(f"Sign in at {cluster.url}/login: alice or bob, password blob (login app log {cluster.login.log})")
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
