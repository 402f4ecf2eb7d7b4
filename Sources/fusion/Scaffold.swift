import FusionHost
import FusionTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of a new plugin package (`fusion new`): what an outsider needs to write,
/// build, test and drive a FusionKit library of their own, and nothing more.
struct Scaffold {
    enum Dependency {
        case path(String)
        case url(String, version: String)
    }

    struct Failure: Error {
        let message: String
    }

    let name: String
    let dependency: Dependency

    /// The feature's name as hosts see it: the package's name in lower camel case.
    var featureName: String { name.prefix(1).lowercased() + name.dropFirst() }
    var typeName: String { name + "Feature" }

    static func libraryFileName(_ name: String) -> String { SharedLibraryName.forLibrary(name) }

    /// The package identity SwiftPM gives the dependency, which product lines name.
    private var packageIdentity: String {
        switch dependency {
        case .path: return "FusionKit"  // named explicitly in the .package line
        case .url(let url, _):
            var last = url.split(separator: "/").last.map(String.init) ?? url
            if last.hasSuffix(".git") { last.removeLast(4) }
            return last
        }
    }

    private var dependencyLine: String {
        switch dependency {
        case .path(let path): return ".package(name: \"FusionKit\", path: \(quoted(path)))"
        case .url(let url, let version): return ".package(url: \(quoted(url)), from: \(quoted(version)))"
        }
    }

    func write(into folder: String) throws(Failure) {
        var info = stat()
        if stat(folder, &info) == 0 { throw Failure(message: "\(folder) exists already; choose another NAME or --path") }
        // The folder it goes in is made too, as mkdir -p would.
        var parent = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            parent += (parent.isEmpty && !folder.hasPrefix("/") ? "" : "/") + part
            if !parent.isEmpty, stat(parent, &info) != 0, mkdir(parent, 0o755) != 0 {
                throw Failure(message: "cannot create \(parent): \(String(cString: strerror(errno)))")
            }
        }
        for directory in [
            folder, "\(folder)/Sources", "\(folder)/Sources/\(name)", "\(folder)/Tests", "\(folder)/Tests/\(name)Tests",
            "\(folder)/frontend", "\(folder)/frontend/\(GeneratedFiles.snake(name))"
        ] {
            guard mkdir(directory, 0o755) == 0 else {
                throw Failure(message: "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
        for (file, text) in files {
            try save(text, to: "\(folder)/\(file)")
        }
    }

    private func save(_ text: String, to path: String) throws(Failure) {
        guard let file = fopen(path, "w") else { throw Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw Failure(message: "cannot write \(path)") }
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingBackslashesAndQuotes() + "\""
    }

    var files: [(String, String)] {
        [
            ("Package.swift", packageSwift),
            (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
            ("Sources/\(name)/\(typeName).swift", featureSwift),
            ("Sources/\(name)/Library.swift", librarySwift),
            ("Tests/\(name)Tests/\(typeName)Tests.swift", testSwift),
            ("README.md", readme)
        ] + frontendFiles
    }

    // -- frontend/: the starter feature's generated types and typed uses of them ----------

    /// What `fusion types` writes for the built library, and a typed Python program and
    /// page script beside them. The types come from the manifest the starter feature gives
    /// (`starterManifest`; Tests/plugins checks them against the built library's with
    /// `fusion types --check`), so a new package has them before its first build.
    var frontendFiles: [(String, String)] {
        let types: LibraryTypes
        do {
            types = try ManifestTypes.read(starterManifest)
        } catch {
            preconditionFailure("the starter manifest is the generator's to read: \(error)")
        }
        let generated = [TypesLanguage.typescript, .python].flatMap {
            GeneratedFiles(types, language: $0, command: "fusion types --lang \($0.rawValue)").files
        }
        return generated.map { ("frontend/\($0.path)", $0.text) } + [
            ("frontend/app.py", appPython), ("frontend/app.js", appScript), ("frontend/tsconfig.json", frontendConfig)
        ]
    }

    /// The manifest entry of the starter feature, as FusionKit writes it for `featureSwift`.
    var starterManifest: JSONValue {
        // Only what the generator reads: the library, and each feature's inputs and schemas.
        return [
            "library": ["name": .string(name), "version": "0.1.0"],
            "features": [
                [
                    "name": .string(featureName),
                    "summary": "Type a name and greet it; a starting point for your own feature.",
                    "inputs": [
                        [
                            "name": "nameChanged",
                            "fields": [["name": "name", "type": "string", "required": true, "schema": ["type": "string"]]]
                        ],
                        ["name": "greetTapped", "fields": []],
                        ["name": "reset", "fields": []]
                    ],
                    "inputSchema": ["title": .string("\(typeName).Input")],
                    "stateSchema": [
                        "title": .string("\(typeName).State"),
                        "type": "object",
                        "properties": [
                            "name": ["type": "string"], "greetings": ["type": "integer"],
                            "message": ["anyOf": [["type": "string"], ["type": "null"]]], "canGreet": ["type": "boolean"]
                        ],
                        "required": ["name", "greetings", "message", "canGreet"],
                        "additionalProperties": false
                    ]
                ]
            ]
        ]
    }

    /// Where the `fusionkit` Python package and `fusionkit.d.ts` are: in the FusionKit
    /// checkout the package depends on, or where SwiftPM checks a URL dependency out.
    private var fusionKitFolder: (path: String, relativeToFrontend: Bool) {
        switch dependency {
        case .path(let path): return (path, false)
        case .url: return ("../.build/checkouts/\(packageIdentity)", true)
        }
    }

    private var appPython: String {
        let module = GeneratedFiles.snake(name)
        let folder = fusionKitFolder
        let bindings =
            folder.relativeToFrontend
            ? "Path(__file__).resolve().parent / \(quoted(folder.path + "/bindings/python"))"
            : "Path(\(quoted(folder.path + "/bindings/python")))"
        return """
            \"\"\"Drives \(featureName) through its generated types (\(module)/, written by
            `fusion types --lang python`): `mypy --strict frontend/app.py` checks every input
            and every state field it reads against the feature.

                swift build && python3 frontend/app.py
            \"\"\"
            from __future__ import annotations

            import sys
            from pathlib import Path

            try:
                import fusionkit  # noqa: F401 (found first, for \(module))
            except ImportError:  # not installed: FusionKit's own copy
                sys.path.insert(0, str(\(bindings)))

            import \(module)  # noqa: E402

            LIBRARY = Path(__file__).resolve().parents[1] / ".build" / "debug" / \(quoted(Self.libraryFileName(name)))


            def main() -> int:
                lib = \(module).load(LIBRARY)
                with lib.create(\(quoted(featureName))) as feature:
                    feature.send({"nameChanged": {"name": "Ada"}})
                    state = feature.send_and_read("greetTapped")
                    print(state["message"], f"({state['greetings']} greeting)")
                return 0


            if __name__ == "__main__":
                sys.exit(main())

            """
    }

    private var appScript: String {
        """
        // @ts-check
        // A page script for `fusion serve .build/debug/\(Self.libraryFileName(name))`, typed by
        // \(GeneratedFiles.kebab(name)).d.ts (`fusion types --lang ts`): `tsc -p frontend` checks
        // every input it sends and every state field it reads against the feature.
        import { connect } from "/fusionkit.js";
        /** @typedef {import("./\(GeneratedFiles.kebab(name))").Features} Features */

        const bridge = /** @type {import("/fusionkit.js").Bridge<Features>} */ (await connect());
        const feature = await bridge.instance(\(quoted(featureName)));
        feature.onState((state) => {
            document.body.textContent = state.message ?? `Type a name (${state.name.length} letters so far)`;
        });
        await feature.send({ nameChanged: { name: "Ada" } });
        if (feature.state?.canGreet) await feature.send("greetTapped");

        """
    }

    private var frontendConfig: String {
        let folder = fusionKitFolder
        let declarations = JSONValue.string(folder.path + "/bindings/web/fusionkit.d.ts").jsonText
        return """
            {
              "compilerOptions": {
                "allowJs": true, "checkJs": true, "noEmit": true, "strict": true,
                "target": "es2022", "module": "es2022", "moduleResolution": "node",
                "lib": ["es2022", "dom"],
                "baseUrl": ".",
                "paths": { "/fusionkit.js": [\(declarations)] }
              },
              "include": ["*.js", "*.d.ts"]
            }

            """
    }

    // The template of a plugin's Package.swift: the shape of examples/plugins/chores's, on purpose.
    private var packageSwift: String {
        """
        // swift-tools-version:6.2
        import PackageDescription

        // A FusionKit feature library: lib\(name) exports the C ABI of FusionKit's
        // include/fusionkit.h, so any FusionKit host (fusion, fusion serve, the Python
        // package, a C program) can load it and drive its features.
        let package = Package(
            name: "\(name)",
            products: [
                .library(name: "\(name)", type: .dynamic, targets: ["\(name)"]),
            ],
            dependencies: [
                \(dependencyLine),
            ],
            targets: [
                .target(
                    name: "\(name)",
                    dependencies: [
                        .product(name: "FusionKit", package: "\(packageIdentity)"),  // Feature, Store, Effect, …
                        .product(name: "FusionABI", package: "\(packageIdentity)"),  // the exported fk_ functions
                    ],
                    swiftSettings: [
                        .swiftLanguageMode(.v6),
                        // No implicit import of Regex support, which features do not use (no
                        // libswift_StringProcessing to load), and generic types made by direct calls
                        // rather than from their mangled names (which look up conformances by scanning
                        // every one loaded): the library loads, and describes its features, faster.
                        .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import",
                                      "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
                    ]),
                .testTarget(
                    name: "\(name)Tests",
                    dependencies: ["\(name)", .product(name: "FusionKit", package: "\(packageIdentity)")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
            ]
        )

        """
    }

    private var librarySwift: String {
        """
        import FusionKit

        /// The registration line: the features this library exports through the C ABI (and
        /// through its WebAssembly module). Add a feature by listing its type here.
        #exportLibrary(name: "\(name)", version: "0.1.0", features: \(typeName).self)

        """
    }

    // The template of a feature: the shape every example feature has, on purpose.
    private var featureSwift: String {
        """
        import FusionKit

        /// A greeting screen, to start from. Its Input/State spec:
        ///
        /// | input | state after |
        /// | --- | --- |
        /// | `nameChanged(name: "Ada")` | `name` is "Ada"; `canGreet` is true |
        /// | `greetTapped` | `greetings` goes up by one; `message` is "Hello, Ada!" |
        /// | `greetTapped` with a blank name | nothing changes |
        /// | `reset` | back to the initial state |
        public struct \(typeName): Feature {
            /// The name hosts use: `fusion run lib\(name).so \(featureName)`.
            public static let name = "\(featureName)"
            public static let summary = "Type a name and greet it; a starting point for your own feature."

            /// What the person does. `@JSONCoded` writes its JSON coding (docs/writing-features.md).
            @JSONCoded
            public enum Input: JSONCoded, Sendable {
                case nameChanged(name: String)
                case greetTapped
                case reset
            }

            /// What the logic does.
            public enum Action: Sendable {
                case setName(String)
                case greet
                case reset
            }

            /// Everything the screen draws, derived values included.
            @JSONCoded
            public struct State: JSONCoded, Equatable, Sendable {
                public var name = ""
                public var greetings = 0
                /// Derived: the greeting to show, once there was one.
                public var message: String?
                /// Derived: whether the greet button is enabled.
                public var canGreet = false

                public init() {}
            }

            public init(environment: Environment) {}

            public var initialState: State { State() }

            public func transform(_ input: Input, state: State) -> [Action] {
                switch input {
                case .nameChanged(let name): return [.setName(name)]
                case .greetTapped: return state.canGreet ? [.greet] : []
                case .reset: return [.reset]
                }
            }

            public func perform(_ action: Action, state: inout State) -> Effect<Action> {
                switch action {
                case .setName(let name):
                    state.name = name
                case .greet:
                    state.greetings += 1
                    state.message = "Hello, \\(state.name.trimmed)!"
                case .reset:
                    state = State()
                }
                state.canGreet = !state.name.trimmed.isEmpty
                return .none
            }
        }

        extension String {
            var trimmed: String {
                String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            }
        }

        """
    }

    private var testSwift: String {
        """
        import FusionKit
        import Testing
        @testable import \(name)

        /// The Input/State spec of \(typeName), input by input.
        @Suite struct \(typeName)Tests {
            @Test func greetsTheNameTyped() async throws {
                let store = Store<\(typeName)>()
                #expect(store.state.canGreet == false)
                store.send(.nameChanged(name: " Ada "))
                #expect(store.state.canGreet)
                store.send(.greetTapped)
                #expect(store.state.greetings == 1)
                #expect(store.state.message == "Hello, Ada!")
            }

            @Test func aBlankNameCannotBeGreeted() async throws {
                let store = Store<\(typeName)>()
                store.send(.nameChanged(name: "   "))
                let before = store.state
                store.send(.greetTapped)
                #expect(store.state == before)
            }

            @Test func resetStartsOver() async throws {
                let store = Store<\(typeName)>()
                store.send(.nameChanged(name: "Ada"))
                store.send(.greetTapped)
                store.send(.reset)
                #expect(store.state == \(typeName).State())
            }
        }

        """
    }

    private var readme: String {
        let file = Self.libraryFileName(name)
        return """
            # \(name)

            A FusionKit feature library: the logic of a screen written once in Swift
            (`Sources/\(name)/\(typeName).swift`), exported through FusionKit's C ABI so that
            every FusionKit front end can drive it.

            ```sh
            swift build        # builds .build/debug/\(file)
            swift test         # runs the feature's Input/State spec (Tests/\(name)Tests)
            ```

            ## Drive it

            From the shell, with the `fusion` client of FusionKit:

            ```sh
            fusion inspect .build/debug/\(file)
            fusion run .build/debug/\(file) \(featureName)                  # type: nameChanged name=Ada, greetTapped
            fusion send .build/debug/\(file) \(featureName) nameChanged name=Ada greetTapped
            ```

            In the browser: `fusion serve .build/debug/\(file)` and open the URL it prints; the
            generic page draws the state and offers every input.

            From Python (the `fusionkit` package of FusionKit's `bindings/python`):

            ```python
            import fusionkit
            lib = fusionkit.load(".build/debug/\(file)")
            with lib.create("\(featureName)") as greeter:
                greeter.send("nameChanged", name="Ada")
                print(greeter.send_and_read("greetTapped"))   # {'name': 'Ada', 'greetings': 1, 'message': 'Hello, Ada!', 'canGreet': True}
            ```

            From C: include FusionKit's `include/fusionkit.h` and link `-l\(name)`, or `dlopen`
            the library and look up the `fk_` functions.

            ## Typed front ends

            `frontend/` holds the feature's types for TypeScript (`\(GeneratedFiles.kebab(name)).d.ts`) and
            Python (`\(GeneratedFiles.snake(name))/`), and a typed use of each: `app.py` and the page
            script `app.js`. Check them, and generate them again after changing a feature:

            ```sh
            python3 frontend/app.py                # Hello, Ada! (1 greeting)
            mypy --strict frontend/app.py          # with FusionKit's bindings/python on MYPYPATH
            tsc -p frontend                        # Debian's node-typescript
            fusion types --lang ts .build/debug/\(file) --out frontend
            fusion types --lang python .build/debug/\(file) --out frontend
            fusion types --lang ts .build/debug/\(file) --check frontend   # exit 7 when stale
            ```

            ## Grow it

            Add a feature as a new type conforming to `Feature`, list it in
            `Sources/\(name)/Library.swift`, and write its spec as tests with `Store`.
            Then generate the front-end types again (above).

            """
    }
}

private extension String {
    /// The text as the inside of a Swift string literal: quotes and backslashes escaped,
    /// control characters (a newline in a path) written as \u{…}.
    func replacingBackslashesAndQuotes() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\\", "\"": out += "\\" + String(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
