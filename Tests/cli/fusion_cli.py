"""Helpers shared by the shell client's tests."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    """A plain environment: no FUSIONKIT_LIBRARY (nor its old name), no NO_COLOR unless asked for."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
           "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def run(fusion: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), *args], input=stdin, capture_output=True, text=True,
                          env=env if env is not None else clean_env(), cwd=cwd, timeout=timeout)


class Tmux:
    """One tmux server (its own socket) running one session; what the screen shows is
    read with capture-pane, polled until the expected text is there."""

    def __init__(self, socket: str, workdir: Path) -> None:
        self.socket = socket
        self.workdir = workdir

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, timeout=30)

    def start(self, *command: str, env: dict[str, str] | None = None, width: int = 120) -> None:
        """Runs the command in a terminal `width` columns wide (120 unless told), 40 high. When it ends, the shell prints its exit
        status and whether the terminal is back in canonical mode, then stays, so the
        screen can still be read."""
        variables = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        # Nothing from the test runner's environment decides colour or the library.
        shell = (f"env -u NO_COLOR -u FUSIONKIT_LIBRARY -u FUSION_LIBRARY {variables} {shlex.join(command)}; echo \"[exited $?]\"; "
                 f"stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'; sleep 600")
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", "40", "-s", "main",
                   "-c", str(self.workdir), shell)

    def keys(self, *keys: str) -> None:
        """tmux key names (Enter, Tab, Up, BSpace, Home, ...) and plain text."""
        for key in keys:
            if re.fullmatch(r"[A-Z][A-Za-z]*|C-[a-z]|M-[a-z]", key):
                self._tmux("send-keys", "-t", "main", key)
            else:
                self._tmux("send-keys", "-t", "main", "-l", key)

    def type(self, text: str) -> None:
        """Types text and presses Enter."""
        self.keys(text, "Enter")

    def screen(self, escapes: bool = False) -> str:
        args = ["capture-pane", "-p", "-t", "main"] + (["-e"] if escapes else [])
        return self._tmux(*args).stdout

    def wait_for(self, pattern: str, timeout: float = 15, regex: bool = False, escapes: bool = False) -> str:
        """Polls the screen until `pattern` (text, or a regex) shows; returns the screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(escapes)
            if (re.search(pattern, screen) if regex else pattern in screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout}s waiting for {pattern!r}; the screen shows:\n{screen}")

    def cursor_line(self) -> str:
        """The screen line the cursor is on."""
        y = int(self._tmux("display-message", "-p", "-t", "main", "#{cursor_y}").stdout.strip())
        return self.screen().splitlines()[y] if y < len(self.screen().splitlines()) else ""

    def kill(self) -> None:
        self._tmux("kill-server", check=False)
