"""A program in a terminal of its own: one tmux server (-L socket) running it in a pane
(80x24 unless told otherwise, in a UTF-8 locale unless told otherwise), keys sent, the
pane resized, and the screen read back, each wait a poll of the screen until what it
waits for shows. Used by the ncurses front end's tests and the three-renderer test."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from ncurses_report import report

WIDTH, HEIGHT = 80, 24


class Terminal:
    """One tmux server of its own (-L socket) running one program in a pane of `size`
    (columns, lines), under the locale `locale` (LANG and LC_ALL). When the program ends
    its exit status is written to a file and the pane stays, so the screen can still be
    read."""

    def __init__(self, workdir: Path, timeout: float, env: dict[str, str],
                 size: tuple[int, int] = (WIDTH, HEIGHT), locale: str = "C.UTF-8") -> None:
        #: The environment the program runs in (nothing that helps the loader).
        self.env = env
        self.size = size
        self.locale = locale
        self.socket = f"fk-ncurses-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir
        self.timeout = timeout
        self.status_file = workdir / "exit-status"

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "LANG": "C.UTF-8"}
        return subprocess.run(["tmux", "-u", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, timeout=30, env=env)

    def start(self, *command: str) -> None:
        variables = {**self.env, "LANG": self.locale, "LC_ALL": self.locale, "TERM": "xterm-256color"}
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
        shell = (f"env -i {assignments} {shlex.join(command)}; "
                 f"echo EXIT=$? > {shlex.quote(str(self.status_file))}; sleep 600")
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", str(self.size[0]), "-y", str(self.size[1]),
                   "-s", "main", "-c", str(self.workdir), shell)

    def resize(self, columns: int, lines: int) -> None:
        """Resizes the pane, as a person dragging the window's corner (the program gets
        SIGWINCH)."""
        self.size = (columns, lines)
        self._tmux("resize-window", "-t", "main", "-x", str(columns), "-y", str(lines))

    def keys(self, *keys: str) -> None:
        """tmux key names (Enter, Escape, Up, Down, BSpace) and literal text."""
        for key in keys:
            if re.fullmatch(r"Enter|Escape|Up|Down|BSpace|C-[a-z]", key):
                self._tmux("send-keys", "-t", "main", key)
            else:
                self._tmux("send-keys", "-t", "main", "-l", key)

    def screen(self, escapes: bool = False) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main", *(["-e"] if escapes else [])).stdout

    def wait(self, ready: Callable[[str], bool], what: str, escapes: bool = False) -> str:
        """Polls the screen until `ready(screen)`; returns that screen."""
        deadline = time.monotonic() + self.timeout
        while True:
            screen = self.screen(escapes)
            if ready(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {self.timeout}s waiting for {what}; the screen shows:\n{screen}")
            time.sleep(0.05)

    def wait_for_text(self, text: str) -> str:
        return self.wait(lambda screen: text in screen, repr(text))

    def wait_for_report(self, **expected: object) -> str:
        """Waits until the screen's report has these values and the screen is drawn whole:
        the same in two captures in a row (a slow program, under a sanitizer or valgrind,
        may be caught half way through a redraw)."""
        last = [""]

        def ready(screen: str) -> bool:
            shown = report(screen)
            settled = screen == last[0]
            last[0] = screen
            return settled and all(shown[key] == value for key, value in expected.items())
        return self.wait(ready, f"a screen with {expected}")

    def wait_for_exit(self) -> int:
        deadline = time.monotonic() + self.timeout
        while not self.status_file.exists() or not self.status_file.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not exit; the screen shows:\n{self.screen()}")
            time.sleep(0.05)
        return int(self.status_file.read_text().strip().removeprefix("EXIT="))

    def kill(self) -> None:
        """Ends the server and removes its socket file (tmux leaves it behind)."""
        socket_path = self._tmux("display-message", "-p", "#{socket_path}", check=False).stdout.strip()
        self._tmux("kill-server", check=False)
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)
