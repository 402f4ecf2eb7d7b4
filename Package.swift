// swift-tools-version:6.2
import CompilerPluginSupport
import Foundation
import PackageDescription

// Layout (see docs/layout.md and ../shared/DESIGN.md):
//   FusionJSON      the JSON codec (value, parser, writer), shared by the library and the hosts
//   FusionKit       authoring API and runtime: Feature, Store, Effect, @JSONCoded coding, Codable over JSON, schema
//   FusionMacros    the compiler plugin behind @JSONCoded and #exportLibrary
//   CFusionKit      include/fusionkit.h seen from Swift
//   FusionABI       the exported C functions declared in include/fusionkit.h
//   FusionExamples  the seed features, shipped as libFusionExamples.so
//   CFFI            libffi from the system (pkg-config), for FusionHost
//   FusionHost      loads any library exporting the C ABI at run time and calls it through libffi
//   CFileSync       syncfs(2), which Swift's Glibc module hides, for FusionHost's journal committer
//   FusionAuth      verifies the tokens of signed-in users (jwt-kit), for the web bridge
//   FusionWeb       the web bridge: serves pages and one WebSocket, drives features through FusionHost
//   CFatalSignal    a crashing bridge closes its sockets before Swift's backtracer runs, for FusionWeb
//   FusionSandbox   plugins compiled to WebAssembly, run in WasmKit with limits (FusionSandboxABI: as a C library)
//   FusionScenario  scenarios (*.scenario.json): Input/State specs run through the C ABI
//   fusion          the shell client: inspect, run (REPL), send, serve (the web bridge), test, new
//   fusion-bench    the benchmarks (HeapProbe: malloc's count of bytes in use, in C)
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny")
]
// The modules a plugin library is made of skip the implicit import of _StringProcessing
// (Regex), which none of them uses: a library built from them then does not load
// libswift_StringProcessing and libswift_RegexParser, about a fifth of its load time.
// They also make generic types' metadata by direct calls rather than from mangled names,
// which the runtime resolves by scanning every conformance loaded for the generic
// requirements: describing the features (the manifest) runs far fewer instructions
// (docs/performance.md, "Start"). A plugin's own module may do the same (the scaffold does).
let inTheLibrary: [SwiftSetting] =
    strict + [
        .unsafeFlags([
            "-Xfrontend", "-disable-implicit-string-processing-module-import",
            "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"
        ])
    ]

// FusionKit's macros (@JSONCoded) are built against the toolchain's own swift-syntax, the
// one its compiler plugins use (usr/lib/swift/host), instead of the swift-syntax package:
// with the package, every build folder (debug, release, each sanitizer) compiles
// swift-syntax first, minutes each on two cores. Found next to the swiftc this manifest
// is built with.
let toolchainHost: String = {
    let candidates =
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/../lib/swift/host" }
        + ["/opt/swift/usr/lib/swift/host", "/usr/lib/swift/host"]
    let found = candidates.first { FileManager.default.fileExists(atPath: "\($0)/libSwiftSyntax.so") }
    return URL(fileURLWithPath: found ?? "/opt/swift/usr/lib/swift/host").standardizedFileURL.path
}()
let hostSyntaxLibraries = [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftDiagnostics", "SwiftCompilerPluginMessageHandling", "SwiftSyntaxBuilder",
    "SwiftParser", "SwiftBasicFormat", "SwiftOperators", "SwiftSyntaxMacroExpansion", "SwiftParserDiagnostics", "SwiftIfConfig"
]

let package = Package(
    name: "FusionKit",
    products: [
        // What a plugin package names: FusionKit to write features, FusionABI to export
        // them through include/fusionkit.h (see docs/plugin-libraries.md, "Writing a plugin library").
        .library(name: "FusionKit", targets: ["FusionKit"]),
        .library(name: "FusionABI", targets: ["FusionABI"]),
        .library(name: "FusionExamples", type: .dynamic, targets: ["FusionExamples"]),
        .executable(name: "fusion-bench", targets: ["fusion-bench"]),
        .library(name: "FusionHost", targets: ["FusionHost"]),
        .executable(name: "fusion", targets: ["fusion"]),
        .library(name: "FusionSandbox", type: .dynamic, targets: ["FusionSandboxABI"])
    ],
    dependencies: [
        // Each package is named here and again (with .product) in the targets that use it:
        // SwiftPM's manifest wants both; the two lists repeat on purpose.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Traits named, not left to the defaults: SwiftPM writes a package's trait defines in
        // a new order at each build plan (`swift test` makes one), and a changed command line
        // recompiles the module (a minute for WasmKit). One trait at most keeps the order; the
        // rest are unused (Hummingbird's URL-encoded forms and swift-configuration, WasmKit's
        // disassembler and file reading).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/swiftwasm/WasmKit", exact: "0.4.2", traits: ["MultiThread"])
    ],
    targets: [
        // The one JSON codec: what a library parses its inputs with and what a host reads
        // manifests and states with. It depends on nothing, so a host that uses it links
        // no part of a library (the depth limit is the caller's argument, not fk_limit's).
        .target(name: "FusionJSON", swiftSettings: inTheLibrary),
        // FusionKit re-exports FusionJSON: features and plugins import FusionKit alone.
        .target(name: "FusionKit", dependencies: ["FusionJSON", "CFusionLimits", "FusionMacros"], swiftSettings: inTheLibrary),
        // The compiler plugin behind @JSONCoded (see toolchainHost above).
        .macro(
            name: "FusionMacros",
            swiftSettings: strict + [.unsafeFlags(["-I", toolchainHost])],
            linkerSettings: [
                .unsafeFlags(["-L", toolchainHost, "-Xlinker", "-rpath", "-Xlinker", toolchainHost] + hostSyntaxLibraries.map { "-l\($0)" })
            ]),
        // The values behind fk_limit(), and the library's other process-wide counts, as C11 atomics
        // (see Sources/FusionKit/Runtime/Limits.swift).
        .target(name: "CFusionLimits"),
        .target(name: "CFusionKit"),
        .target(name: "FusionABI", dependencies: ["FusionKit", "CFusionKit", "CFusionLimits"], swiftSettings: inTheLibrary),
        .target(name: "FusionExamples", dependencies: ["FusionKit", "FusionABI"], swiftSettings: inTheLibrary),
        .executableTarget(
            name: "fusion-bench", dependencies: ["FusionKit", "FusionABI", "FusionExamples", "CFusionKit", "HeapProbe"],
            path: "Benchmarks/fusion-bench", swiftSettings: strict),
        .target(name: "HeapProbe", path: "Benchmarks/heap-probe"),
        // The sandbox's round trip, instance memory and load time beside the native library's.
        .executableTarget(
            name: "sandbox-bench", dependencies: ["FusionHost", "FusionSandbox", "HeapProbe"], path: "Benchmarks/sandbox-bench",
            swiftSettings: strict),
        .testTarget(name: "FusionJSONTests", dependencies: ["FusionJSON"], swiftSettings: strict),
        .testTarget(name: "FusionKitTests", dependencies: ["FusionKit"], swiftSettings: strict),
        .testTarget(
            name: "FusionExamplesTests", dependencies: ["FusionKit", "FusionABI", "FusionExamples", "CFusionKit", "RuleVectors"],
            swiftSettings: strict),
        // Hosts see a library only through the C ABI: FusionHost, FusionWeb, FusionScenario
        // and fusion must not depend on FusionKit, FusionABI or FusionExamples (CFusionKit
        // is just the header; FusionJSON is the codec both sides share, and FusionHost
        // re-exports it).
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        .target(name: "CFileSync"),
        .target(name: "FusionHost", dependencies: ["FusionJSON", "CFFI", "CFusionKit", "CFileSync"], swiftSettings: strict),
        // Who is at the other end (`fusion serve --auth jwt`): tokens verified with jwt-kit.
        .target(
            name: "FusionAuth",
            dependencies: ["FusionJSON", .product(name: "JWTKit", package: "jwt-kit")],
            swiftSettings: strict),
        // Async-signal-safe code, in C: what a bridge does on a fatal signal (fatal_signal.h).
        .target(name: "CFatalSignal"),
        .target(
            name: "FusionWeb",
            dependencies: [
                "FusionHost", "FusionAuth", "CFatalSignal",
                // The packages of `dependencies` above, product by product (SwiftPM wants both lists).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics")
            ],
            swiftSettings: strict),
        // The journal in PostgreSQL (`fusion serve --journal postgres://…`): a target of its
        // own, so that only the shell client links postgres-nio, never a plugin's build.
        .target(
            name: "FusionJournalPostgres",
            dependencies: [
                "FusionHost",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio")
            ],
            swiftSettings: strict),
        // Plugins compiled to WebAssembly, run in WasmKit with a time budget and a memory
        // cap behind the host's LibraryBackend (`fusion … plugin.wasm`).
        .target(
            name: "FusionSandbox", dependencies: ["FusionHost", "CFusionKit", .product(name: "WasmKit", package: "WasmKit")],
            swiftSettings: strict),
        // libFusionSandbox.so: include/fusionkit.h's functions over one sandboxed module, for
        // C programs and Python (fk_sandbox_open in include/fusionkit_sandbox.h).
        .target(name: "FusionSandboxABI", dependencies: ["FusionSandbox", "FusionHost", "CFusionKit"], swiftSettings: strict),
        .target(name: "FusionScenario", dependencies: ["FusionHost"], swiftSettings: strict),
        // Typed front-end code (TypeScript, Python) from a library's manifest: `fusion types`.
        .target(name: "FusionTypes", dependencies: ["FusionJSON"], swiftSettings: strict),
        .executableTarget(
            name: "fusion",
            dependencies: [
                "FusionHost", "FusionWeb", "FusionScenario", "FusionTypes", "FusionJournalPostgres", "FusionSandbox",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict),
        .testTarget(name: "FusionHostTests", dependencies: ["FusionHost", "RuleVectors"], swiftSettings: strict),
        // The reader of the shared rule vectors (Tests/vectors), for the test targets below.
        .target(name: "RuleVectors", dependencies: ["FusionJSON"], path: "Tests/RuleVectors", swiftSettings: strict),
        // The shell client's own rules (its input syntax) against the shared vectors.
        .testTarget(name: "FusionCLITests", dependencies: ["fusion", "FusionHost", "RuleVectors"], swiftSettings: strict),
        .testTarget(
            name: "FusionWebTests",
            dependencies: [
                "FusionWeb", "FusionAuth", "FusionHost",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            swiftSettings: strict),
        // Every scenario of examples/scenarios (and Tests/scenarios/failing) as a Swift test.
        .testTarget(name: "ScenarioTests", dependencies: ["FusionScenario", "FusionHost", "RuleVectors"], swiftSettings: strict)
    ]
)

// The sanitizer and fuzzing builds of scripts/test-reliability set FUSIONKIT_CORE_ONLY=1:
// the library, its host and their tests, without the web bridge, the shell client and
// the benchmarks, whose dependencies (Hummingbird, NIO) would make each instrumented
// build several times longer. The dependencies stay declared so that resolution, and
// Package.resolved, are the same as in the full build.
if Context.environment["FUSIONKIT_CORE_ONLY"] != nil {
    let left = Set([
        "FusionWeb", "FusionAuth", "FusionJournalPostgres", "FusionTypes", "fusion", "FusionWebTests", "FusionCLITests", "fusion-bench",
        "HeapProbe", "FusionSandbox", "FusionSandboxABI", "sandbox-bench"
    ])
    package.targets.removeAll { left.contains($0.name) }
    package.products.removeAll { left.contains($0.name) }
}
