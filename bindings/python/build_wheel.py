#!/usr/bin/env python3
"""Builds a wheel of the fusionkit package that carries the release libFusionExamples.so
and the Swift runtime libraries it needs, so that it works where no Swift toolchain is
installed. Run through scripts/build-wheel.

1. `swift build -c release --product FusionExamples` (skip with --no-build).
2. Copy the package into a staging folder, and into fusionkit/_lib/ the library and
   every library `ldd` resolves from the toolchain's runtime folder
   (/opt/swift/usr/lib/swift/linux), following their own dependencies too.
3. `patchelf --set-rpath '$ORIGIN'` on each copy: they find one another next to
   themselves, and nothing in the toolchain.
4. `pip wheel` the staging folder (setuptools, no build isolation: no network), tagged
   py3-none-<platform>: pure Python, but native libraries inside.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LIBRARY = "libFusionExamples.so"


def toolchain_runtime() -> Path:
    """The Swift toolchain's runtime folder: <toolchain>/usr/lib/swift/linux."""
    swift = shutil.which("swift")
    if swift:
        candidate = Path(swift).resolve().parents[1] / "lib" / "swift" / "linux"
        if candidate.is_dir():
            return candidate
    return Path("/opt/swift/usr/lib/swift/linux")


def resolved_dependencies(library: Path) -> dict[str, Path]:
    """What the loader resolves for `library` (and, through ldd, for its dependencies)."""
    out = subprocess.run(["ldd", str(library)], check=True, capture_output=True, text=True).stdout
    found: dict[str, Path] = {}
    for line in out.splitlines():
        match = re.match(r"\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)", line)
        if match:
            found[match.group(1)] = Path(match.group(2))
        elif "not found" in line:
            raise SystemExit(f"build-wheel: {library.name} needs a library the loader cannot find: {line.strip()}")
    return found


def runtime_closure(library: Path, runtime: Path) -> dict[str, Path]:
    """The libraries under `runtime` that `library` needs, directly or through another."""
    needed: dict[str, Path] = {}
    pending = [library]
    while pending:
        for name, path in resolved_dependencies(pending.pop()).items():
            if path.resolve().is_relative_to(runtime.resolve()) and name not in needed:
                needed[name] = path
                pending.append(path)
    return needed


def set_origin_runpath(path: Path) -> None:
    subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", str(path)], check=True)
    runpath = subprocess.run(["patchelf", "--print-rpath", str(path)], check=True, capture_output=True,
                             text=True).stdout.strip()
    if runpath != "$ORIGIN":
        raise SystemExit(f"build-wheel: {path.name} kept RUNPATH {runpath!r}")


def platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def build(library: Path, out: Path, runtime: Path) -> Path:
    if shutil.which("patchelf") is None:
        raise SystemExit("build-wheel: patchelf is missing (scripts/setup installs it: apt-get install patchelf)")
    with tempfile.TemporaryDirectory(prefix="fusionkit-wheel-") as folder:
        staging = Path(folder) / "fusionkit-src"
        shutil.copytree(HERE / "fusionkit", staging / "fusionkit",
                        ignore=shutil.ignore_patterns("__pycache__", "_lib", "*.pyc"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(HERE / name, staging / name)
        bundle = staging / "fusionkit" / "_lib"
        bundle.mkdir()
        shutil.copy2(library, bundle / LIBRARY)
        runtime_libraries = runtime_closure(library, runtime)
        if not runtime_libraries:
            raise SystemExit(f"build-wheel: {library} needs nothing from {runtime}; is that the toolchain's runtime?")
        for name, path in sorted(runtime_libraries.items()):
            shutil.copy2(path.resolve(), bundle / name)
        for copy in bundle.iterdir():
            copy.chmod(0o755)
            set_origin_runpath(copy)
        # Pure Python, but carrying native code: tag the platform, not a Python ABI.
        (staging / "setup.cfg").write_text(f"[bdist_wheel]\npython_tag = py3\nplat_name = {platform_tag()}\n")
        out.mkdir(parents=True, exist_ok=True)
        before = set(out.glob("fusionkit-*.whl"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "--wheel-dir", str(out), str(staging)], check=True)
        built = sorted(set(out.glob(f"fusionkit-*-py3-none-{platform_tag()}.whl")) - before
                       or out.glob(f"fusionkit-*-py3-none-{platform_tag()}.whl"), key=lambda p: p.stat().st_mtime)
        if not built:
            raise SystemExit(f"build-wheel: pip wheel left no fusionkit wheel in {out}")
        wheel = built[-1]
    with zipfile.ZipFile(wheel) as archive:
        bundled = sorted(Path(name).name for name in archive.namelist() if name.startswith("fusionkit/_lib/"))
    print(f"{wheel}")
    print(f"  bundled: {', '.join(bundled)}", file=sys.stderr)
    return wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", type=Path, default=ROOT / ".build" / "release" / LIBRARY,
                        help="the library to bundle (default: the release build)")
    parser.add_argument("--out", type=Path, default=HERE / "dist", help="where to put the wheel")
    parser.add_argument("--swift-runtime", type=Path, default=None,
                        help="the toolchain's runtime folder (default: found from `swift` on PATH)")
    parser.add_argument("--no-build", action="store_true", help="use the library as it is; do not run swift build")
    args = parser.parse_args(argv)
    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "FusionExamples"], cwd=ROOT, check=True)
    if not args.library.is_file():
        raise SystemExit(f"build-wheel: no library at {args.library}")
    build(args.library.resolve(), args.out.resolve(), args.swift_runtime or toolchain_runtime())
    return 0


if __name__ == "__main__":
    sys.exit(main())
