"""How the Embedded Swift (wasm32) builds of Tests/wasm are made: the toolchain's pieces,
and which of FusionKit's sources build under Embedded Swift so far (issue 37). One list,
read by every test here."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / ".build" / "debug"
TOOLCHAIN = Path(shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc").resolve().parent
WASI_LIBC = Path("/usr/lib/wasm32-wasi/libc.a")
UNICODE_TABLES = TOOLCHAIN.parent / "lib/swift/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a"
MACROS = ["-load-plugin-executable", f"{BUILD / 'FusionMacros-tool'}#FusionMacros"]
EMBEDDED = ["-target", "wasm32-unknown-none-wasm", "-enable-experimental-feature", "Embedded", "-wmo", "-Osize",
            "-Xfrontend", "-disable-stack-protector", "-parse-as-library", "-swift-version", "6"]

KIT = ROOT / "Sources/FusionKit"
#: The codec and the parts of FusionKit a type's JSON coding needs.
CODING = [*sorted((ROOT / "Sources/FusionJSON").glob("*.swift")), *sorted((KIT / "Coding").glob("*.swift")),
          KIT / "Schema/Shape.swift", KIT / "JSON/JSONCodingError.swift", KIT / "Authoring/DerivedFields.swift"]
#: What a feature is written against: the authoring API, with what it uses of the runtime.
AUTHORING = [*CODING, *(KIT / "Authoring" / name for name in
                        ("Clock.swift", "Effect.swift", "Environment.swift", "Feature.swift", "StateMigrationError.swift",
                         "RandomSource.swift", "User.swift")),
             KIT / "Runtime/ConditionLock.swift", KIT / "Runtime/FusionError.swift"]
EXAMPLES = ROOT / "Sources/FusionExamples"
#: The example features that build under Embedded Swift so far, unchanged: all but the
#: Profile, whose host requests wait on Swift concurrency (not in Embedded wasm32 yet).
EMBEDDED_FEATURES = [EXAMPLES / "Counter/Counter.swift", EXAMPLES / "Answer/Answer.swift", EXAMPLES / "Home/Home.swift",
                     *sorted((EXAMPLES / "WiFiSettings").glob("*.swift"))]


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, command[:3]))}…:\n{result.stderr[-4000:]}"
    return result


def missing() -> list[Path]:
    """What a build here needs and this machine lacks (scripts/setup installs it)."""
    builtins = sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a"))
    needed = [BUILD / "FusionMacros-tool", WASI_LIBC, UNICODE_TABLES]
    return [path for path in needed if not path.exists()] + ([] if builtins else [Path("libclang_rt.builtins-wasm32.a")])


def compiler_builtins() -> Path:
    return sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a"))[-1]
