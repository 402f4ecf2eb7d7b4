"""A team's own login, as small as one can be: it checks a name and a password, issues a
JSON Web Token with PyJWT, and puts it in the cookie `fusion serve --auth jwt` reads
(docs/security.md, "Issuing the token"). A real app checks passwords against its own
user store; what matters here is the token and the cookie's flags.

    python3 examples/auth/login_app.py --key secret.key --audience fusion [--port 8000]

GET /login shows a form; POST /login checks it, sets `fusion_token` (HttpOnly,
SameSite=Strict, Secure under https) and sends the browser on to --next; POST /logout
clears it. Behind nginx it is one origin with the bridges (deploy/nginx.conf routes
/login and /logout here), so the browser sends the cookie with the bridge's WebSocket.
"""
from __future__ import annotations

import argparse
import html
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt  # PyJWT

# The demo's users: name → (password, display name). The password is the seed's own.
USERS = {"alice": ("blob", "Alice Example"), "bob": ("blob", "Bob Example")}

FORM = """<!doctype html><html lang="en"><meta charset="utf-8"><title>Sign in</title>
<link rel="stylesheet" href="/style.css">
<main><h1>Sign in</h1>{error}
<form method="post" action="/login" data-test="login-form">
<p><label>Name <input name="user" type="text" data-test="login-user" autocomplete="username"></label></p>
<p><label>Password <input name="password" type="password" data-test="login-password" autocomplete="current-password"></label></p>
<p><button class="btn" data-test="login-submit">Sign in</button></p></form></main></html>"""


class Issuer:
    """Signs tokens: HS256 with a shared secret, or RS256/ES256 with a private key (the
    bridge then gets the public key)."""

    def __init__(self, key_file: Path, algorithm: str, audience: str, issuer: str | None, lifetime: int) -> None:
        data = key_file.read_bytes()
        self.key: bytes | str = data.rstrip(b"\r\n") if algorithm.startswith("HS") else data.decode()
        self.algorithm = algorithm
        self.audience = audience
        self.issuer = issuer
        self.lifetime = lifetime

    def token(self, user: str, name: str) -> str:
        now = int(time.time())
        claims: dict[str, object] = {"sub": user, "name": name, "aud": self.audience, "iat": now, "nbf": now,
                                     "exp": now + self.lifetime}
        if self.issuer:
            claims["iss"] = self.issuer
        return jwt.encode(claims, self.key, algorithm=self.algorithm)


def cookie(value: str, *, secure: bool, max_age: int) -> str:
    """The token's cookie: HttpOnly (no script can read it), SameSite=Strict (no other
    site's page sends it), Secure under https (never over plain http), for the whole site."""
    flags = f"fusion_token={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}"
    return flags + ("; Secure" if secure else "")


def make_handler(issuer: Issuer, next_page: str, trust_forwarded: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def is_https(self) -> bool:
            # Behind a proxy that ends TLS, the proxy says so; believed only when told to.
            return trust_forwarded and self.headers.get("X-Forwarded-Proto", "").lower() == "https"

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if urllib.parse.urlsplit(self.path).path != "/login":
                self.send_error(404)
                return
            self.page(200, FORM.format(error=""))

        def do_POST(self) -> None:  # noqa: N802
            path = urllib.parse.urlsplit(self.path).path
            if path == "/logout":
                self.redirect("/login", cookie("", secure=self.is_https(), max_age=0))
                return
            if path != "/login":
                self.send_error(404)
                return
            length = min(int(self.headers.get("Content-Length", "0") or 0), 4096)
            form = urllib.parse.parse_qs(self.rfile.read(length).decode(errors="replace"))
            user = form.get("user", [""])[0]
            password = form.get("password", [""])[0]
            known = USERS.get(user)
            if known is None or known[0] != password:
                self.page(401, FORM.format(error='<p class="banner" data-test="login-error">Wrong name or password.</p>'))
                return
            token = issuer.token(user, known[1])
            self.redirect(next_page, cookie(token, secure=self.is_https(), max_age=issuer.lifetime))

        def page(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def redirect(self, location: str, set_cookie: str) -> None:
            self.send_response(303)
            self.send_header("Location", location)
            self.send_header("Set-Cookie", set_cookie)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            # The request line only: never a form, a cookie or a token.
            print(f"login: {html.escape(self.requestline)} {args[1] if len(args) > 1 else ''}", flush=True)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--key", type=Path, required=True, help="an HS256 secret, or a private key PEM for RS256/ES256")
    parser.add_argument("--algorithm", default="HS256", choices=["HS256", "RS256", "ES256"])
    parser.add_argument("--audience", required=True, help="the bridge's --jwt-audience")
    parser.add_argument("--issuer", help="the bridge's --jwt-issuer")
    parser.add_argument("--lifetime", type=int, default=3600, help="seconds a token lasts")
    parser.add_argument("--next", default="/profile.html", help="where a signed-in browser goes")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--trust-forwarded-proto", action="store_true",
                        help="believe X-Forwarded-Proto (only behind a proxy that sets it)")
    args = parser.parse_args()
    issuer = Issuer(args.key, args.algorithm, args.audience, args.issuer, args.lifetime)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(issuer, args.next, args.trust_forwarded_proto))
    print(f"Login at http://{args.host}:{server.server_address[1]}/login", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
