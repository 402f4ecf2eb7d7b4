"""Builds a FusionKit library as one WebAssembly module with Embedded Swift (docs/wasm.md).

The same Swift sources as the native library: FusionJSON, the parts of FusionKit that
build under Embedded Swift (the list below, the one place it is kept), the module's
runtime and exports (Wasm/Runtime), and the library's own sources (its features and its
`#exportLibrary` registration line).
Run as `scripts/build-wasm`; Tests/wasm imports the lists and `build`."""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEBUG = ROOT / ".build" / "debug"
TOOLCHAIN = Path(shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc").resolve().parent
WASI_LIBC = Path("/usr/lib/wasm32-wasi/libc.a")
WASI_INCLUDE = Path("/usr/include/wasm32-wasi")
#: Modules built before, by what they were built from (see `build`).
CACHE = ROOT / ".build" / "wasm-cache"
#: How many built modules and FusionKit builds the cache keeps (the newest).
CACHE_KEEPS = 12
UNICODE_TABLES = TOOLCHAIN.parent / "lib/swift/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a"
MACROS = ["-load-plugin-executable", f"{DEBUG / 'FusionMacros-tool'}#FusionMacros"]
EMBEDDED = ["-target", "wasm32-unknown-none-wasm", "-enable-experimental-feature", "Embedded", "-wmo", "-O",
            "-Xfrontend", "-disable-stack-protector", "-parse-as-library", "-swift-version", "6"]

KIT = ROOT / "Sources/FusionKit"
#: The codec and the parts of FusionKit a type's JSON coding needs.
CODING = [*sorted((ROOT / "Sources/FusionJSON").glob("*.swift")), *sorted((KIT / "Coding").glob("*.swift")),
          KIT / "Schema/Shape.swift", KIT / "JSON/JSONCodingError.swift", KIT / "Authoring/DerivedFields.swift"]
#: What a feature is written against: the authoring API, with what it uses of the runtime.
AUTHORING = [*CODING, *(KIT / "Authoring" / name for name in
                        ("Clock.swift", "Effect.swift", "EffectRequest.swift", "HostRequest.swift", "Environment.swift",
                         "Feature.swift", "StateMigrationError.swift",
                         "RandomSource.swift", "User.swift", "FeatureSetting.swift")),
             KIT / "Runtime/ConditionLock.swift", KIT / "Runtime/FusionError.swift"]
#: What the module's runtime adds: the input checks and creation options the native
#: library uses, and the instance and exports of Wasm/Runtime.
RUNTIME = [*AUTHORING, KIT / "Runtime/ActionOrder.swift", KIT / "Runtime/Timeline.swift", KIT / "Library/InputCatalog.swift", KIT / "Library/InputCatalog+Schema.swift",
           KIT / "Library/ManifestEntry.swift", KIT / "Library/ExportLibrary.swift", KIT / "Library/StateRestoration.swift", KIT / "Patch/StatePatchCost.swift", KIT / "Schema/JSONSchema.swift", KIT / "Library/InstanceOptions.swift", KIT / "Library/WholeNumber.swift",
           KIT / "Library/Checkpoint.swift", KIT / "Authoring/RequestMode.swift",
           *sorted((ROOT / "Wasm/Runtime").glob("*.swift"))]
EXAMPLES = ROOT / "Sources/FusionExamples"
#: The demo pages, which load the example module from their own folder (`?transport=wasm`).
PAGES = ROOT / "examples/web"
#: The example library's sources, unchanged: its features and its registration line
#: (Library.swift: `#exportLibrary`, one list for both builds).
LIBRARY_SOURCES = sorted(EXAMPLES.rglob("*.swift"))
#: The features alone, which need only the authoring API.
EMBEDDED_FEATURES = [path for path in LIBRARY_SOURCES if path.name != "Library.swift"]
#: What the module exports (Wasm/Runtime/WasmExports.swift).
EXPORTS = ["fk_alloc", "fk_free", "fk_manifest", "fk_feature_names", "fk_create", "fk_destroy", "fk_send", "fk_state", "fk_state_patch", "fk_version",
           "fk_advance_clock", "fk_elapse", "fk_next_wake", "fk_pending_effects", "fk_goto", "fk_history",
           "fk_pending_requests", "fk_poll_request", "fk_respond", "fk_fail_request", "fk_last_error_message",
           "fk_last_error_status", "fk_status_name"]


def run(command: list[str | Path], input: str | None = None) -> subprocess.CompletedProcess[str]:  # noqa: A002
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=900, input=input)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command[:3]))}… failed:\n{result.stderr[-6000:]}")
    return result


def compiler_builtins() -> Path | None:
    """compiler-rt's wasm32 builtins (128-bit multiplication and the like)."""
    found = sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a"))
    return found[-1] if found else None


def missing() -> list[str]:
    """What a build needs and this machine lacks: `swift build` makes the macros;
    scripts/setup installs the rest."""
    needed = [DEBUG / "FusionMacros-tool", WASI_LIBC, UNICODE_TABLES]
    return [str(path) for path in needed if not path.exists()] + ([] if compiler_builtins() else ["libclang-rt-dev-wasm32"])


def _fingerprint(parts: list[object]) -> str:
    """A digest of what a build step reads: its command line's words, and for each file
    its content (sources, small) or its size and modification time (tools and archives,
    large, replaced whole when they change)."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            digest.update(str(part).encode())
            if part.suffix in (".swift", ".c", ".h"):
                digest.update(part.read_bytes())
            else:
                info = part.stat()
                digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def _cached(name: str, make: Callable[[Path], None]) -> Path:
    """The cache's folder `name`, made by `make(folder)` first if it is not there. Made
    in a folder of its own and renamed into place, so that a build that fails or is
    interrupted leaves nothing, and two builds at once each finish with a whole one."""
    done = CACHE / name
    if done.is_dir():
        os.utime(done)  # newest first when the cache is pruned
        return done
    CACHE.mkdir(parents=True, exist_ok=True)
    work = CACHE / f".{name}.{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        make(work)
        work.rename(done)
    except OSError:
        if not done.is_dir():  # not another build's, finished first
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    entries = sorted((entry for entry in CACHE.iterdir() if not entry.name.startswith(".")),
                     key=lambda entry: entry.stat().st_mtime, reverse=True)
    for old in entries[CACHE_KEEPS:]:
        shutil.rmtree(old, ignore_errors=True)
    return done


def build(out: Path, sources: list[Path] = LIBRARY_SOURCES, module: str = "FusionExamples") -> Path:
    """Builds the module `out/<module>.wasm` from a library's `sources` (its features and
    its `#exportLibrary` line).

    The tests and the benchmarks build the same modules many times in a run, and each
    build compiles FusionKit whole (-wmo -O) first: both steps are kept in `.build/wasm-cache`
    by what they were built from (the sources' contents, the tools, the flags), so a build
    whose inputs have not changed is a copy."""
    if missing():
        raise RuntimeError(f"missing: {', '.join(missing())} (swift build makes the macros; scripts/setup installs the rest)")
    swiftc = TOOLCHAIN / "swiftc"
    macros = DEBUG / "FusionMacros-tool"
    kit_key = _fingerprint([swiftc, macros, *EMBEDDED, *MACROS, *RUNTIME])

    def make_kit(folder: Path) -> None:
        run([swiftc, *EMBEDDED, "-module-name", "FusionKit", *MACROS, "-emit-module", "-emit-module-path",
             folder / "FusionKit.swiftmodule", *RUNTIME, "-c", "-o", folder / "FusionKit.o"])

    kit = _cached(f"FusionKit-{kit_key}", make_kit)
    shim = ROOT / "Wasm/Runtime/strtod_shim.c"
    builtins = compiler_builtins()
    assert builtins is not None  # missing() says so otherwise
    module_key = _fingerprint([kit_key, module, *sources, shim, WASI_LIBC, UNICODE_TABLES, builtins, *EXPORTS])

    def make_module(folder: Path) -> None:
        run([swiftc, *EMBEDDED, "-module-name", module, *MACROS, "-I", kit, *sources,
             "-c", "-o", folder / f"{module}.o"])
        run([TOOLCHAIN / "clang", "--target=wasm32-wasi", "-isystem", WASI_INCLUDE, "-O2", "-c",
             shim, "-o", folder / "strtod_shim.o"])
        run([TOOLCHAIN / "wasm-ld", "--no-entry", "--gc-sections", "--strip-all", *(f"--export={name}" for name in EXPORTS),
             kit / "FusionKit.o", folder / f"{module}.o", folder / "strtod_shim.o", WASI_LIBC, UNICODE_TABLES, builtins,
             "-o", folder / f"{module}.wasm"])

    built = _cached(f"{module}-{module_key}", make_module)
    out.mkdir(parents=True, exist_ok=True)
    wasm = out / f"{module}.wasm"
    shutil.copyfile(built / f"{module}.wasm", wasm)
    return wasm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".build/wasm", help="where the module goes (.build/wasm)")
    parser.add_argument("--pages", type=Path, default=PAGES,
                        help="a copy for the demo pages (examples/web, where they load it from; '' for none)")
    arguments = parser.parse_args()
    try:
        wasm = build(arguments.out)
    except RuntimeError as error:
        print(f"build-wasm: {error}", file=sys.stderr)
        return 1
    print(f"{wasm} ({wasm.stat().st_size:,} bytes)")
    if str(arguments.pages) not in ("", "."):
        # A copy, not a link: `fusion serve` serves no link that leads out of its folder.
        copy = arguments.pages / wasm.name
        shutil.copyfile(wasm, copy)
        print(f"{copy} (the demo pages' copy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
