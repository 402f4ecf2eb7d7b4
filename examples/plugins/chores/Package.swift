// swift-tools-version:6.2
import PackageDescription

// Chores: a FusionKit feature library written outside FusionKit, as anyone would write
// one. libChores exports the C ABI of FusionKit's include/fusionkit.h, so every FusionKit
// host (fusion, fusion serve, the Python package, a C program) can load it and drive
// its features: "todo" (a to-do list with filters) and "counter" (a tally counter).
let package = Package(
    name: "Chores",
    products: [
        .library(name: "Chores", type: .dynamic, targets: ["Chores"])
    ],
    dependencies: [
        // This repository, by path; from elsewhere: .package(url: "…/FusionKit.git", from: "…").
        .package(name: "FusionKit", path: "../../..")
    ],
    targets: [
        // What `fusion new` writes too (Sources/fusion/Scaffold.swift): a plugin's Package.swift has one shape.
        .target(
            name: "Chores",
            dependencies: [
                .product(name: "FusionKit", package: "FusionKit"),  // Feature, Store, Effect, Environment, …
                .product(name: "FusionABI", package: "FusionKit")  // the exported fk_ functions
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                // No implicit import of Regex support, which features do not use (no
                // libswift_StringProcessing to load), and generic types made by direct calls
                // rather than from their mangled names (which look up conformances by scanning
                // every one loaded): the library loads, and describes its features, faster.
                .unsafeFlags([
                    "-Xfrontend", "-disable-implicit-string-processing-module-import",
                    "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"
                ])
            ]),
        .testTarget(
            name: "ChoresTests",
            dependencies: ["Chores", .product(name: "FusionKit", package: "FusionKit")],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
