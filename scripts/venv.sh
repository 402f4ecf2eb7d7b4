# Sourced, not run, by the scripts that run Python (from the checkout's root): puts the
# checkout's .venv, which scripts/setup makes, first on PATH, so that `python3` there, in
# a script's shebang and in every subprocess a test starts is the one with the project's
# packages. The system's Python may refuse packages (Debian's is externally managed).
if ! "$PWD/.venv/bin/python3" -c "" 2>/dev/null; then
    echo "$(basename "$0"): no working .venv in $PWD: run scripts/setup" >&2
    exit 1
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
