import ArgumentParser
import FusionHost
import FusionTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion types --lang ts|python|java [LIB…]`: typed front-end code from a library's manifest.
struct Types: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write TypeScript, Python or Java types for a library's features, from its manifest.",
        usage: "fusion types --lang ts|python|java [LIB…] [--feature NAME…] [--out DIR | --check DIR]",
        discussion: """
            For each library, the types of its features' states and inputs, read from the \
            library's manifest (so any FusionKit library, built by anyone, and no Swift \
            toolchain needed):

              ts      LIBNAME.d.ts (e.g. fusion-examples.d.ts): a Features map for \
            fusionkit.js, connect<Features>(), and every type the states and inputs use
              python  the package LIB_NAME/ (__init__.py and py.typed): TypedDicts, input \
            unions, and a Library whose create("wifi") is a typed fusionkit.Instance
              java    LIB_NAME/LibName.java: records, sealed interfaces of input \
            records, and a class whose wifi() is a typed fusionkit.TypedInstance

            Without --out or --check, the one library's types go to standard output. \
            --check DIR writes nothing and exits 7, naming each difference, when the files \
            in DIR are not what the library gives now: run it in CI next to committed files.

            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """)

    @Option(help: ArgumentHelp("The language: ts (TypeScript declarations), python or java.", valueName: "ts|python|java"))
    var lang: String

    @Argument(help: ArgumentHelp("The libraries (optional; default: the example library).", valueName: "lib"))
    var libraries: [String] = []

    @Option(name: .customLong("feature"), help: ArgumentHelp("Only this feature (repeat for several).", valueName: "name"))
    var features: [String] = []

    @Option(help: ArgumentHelp("Write the files into this folder (made if missing).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("Compare the files in this folder with what the library gives; exit 7 on a difference.", valueName: "dir"))
    var check: String?

    func validate() throws {
        guard TypesLanguage(rawValue: lang) != nil else {
            throw ValidationError("--lang is ts, python or java (got \"\(lang)\")")
        }
        if out != nil && check != nil { throw ValidationError("give --out or --check, not both") }
        if let word = LibraryChoice.split(libraries).rest.first {
            throw ValidationError("\"\(word)\" is not a library (a path, or a name ending in .so); name features with --feature")
        }
        if out == nil && check == nil && libraries.count > 1 {
            throw ValidationError("several libraries write several files: give --out DIR")
        }
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        let language = TypesLanguage(rawValue: lang)!
        let set = try LibraryChoice.load(libraries, limits: plugin.limits)
        // With several libraries, each writes the named features it has; a name none has is an error.
        let manifests = try set.libraries.map { (library) throws(CLIError) in try library.wholeManifest() }
        for name in features where !manifests.contains(where: { $0.feature(named: name) != nil }) {
            let known = manifests.flatMap { $0.features.map(\.name) }
            throw CLIError(.unknownFeature, "unknown feature \"\(name)\"; the libraries' features: \(known.joined(separator: ", "))")
        }
        var generated: [GeneratedFiles] = []
        for (library, manifest) in zip(set.libraries, manifests) {
            let wanted = features.filter { manifest.feature(named: $0) != nil }
            if !features.isEmpty && wanted.isEmpty { continue }
            do throws(TypesError) {
                var types = try ManifestTypes.read(manifest.json, features: features.isEmpty ? nil : wanted)
                types.product = Self.product(ofFile: library.path) ?? types.product
                generated.append(GeneratedFiles(types, language: language, command: "fusion types --lang \(lang)"))
            } catch {
                throw CLIError(.library, "\(manifest.libraryName): \(error.description)")
            }
        }
        if let check {
            try Self.check(generated, in: check)
        } else if let out {
            try Self.write(generated, into: out)
        } else {
            for file in generated[0].files where !file.text.isEmpty { Terminal.write(file.text) }
        }
    }

    /// The product a library file was built as: "./libChores.so" → "Chores" (SwiftPM names
    /// a dynamic library product lib<Product>.so, .dylib, or <Product>.dll), so that a
    /// generated loader names the file to look for and the product to build.
    static func product(ofFile path: String) -> String? {
        let parts = (path.split(separator: "/").last ?? "").split(separator: ".", omittingEmptySubsequences: false)
        // libChores.so, libChores.so.1, libChores.dylib, Chores.dll
        guard let suffix = parts.indices.dropFirst().first(where: { ["so", "dylib", "dll"].contains(parts[$0]) }),
            parts[(suffix + 1)...].allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        else { return nil }
        let stem = parts[..<suffix].joined(separator: ".")
        if parts[suffix] == "dll" { return stem.isEmpty ? nil : stem }
        return stem.hasPrefix("lib") && stem.count > 3 ? String(stem.dropFirst(3)) : nil
    }

    static func check(_ generated: [GeneratedFiles], in folder: String) throws(CLIError) {
        var drifts: [Drift] = []
        for file in generated.flatMap(\.files) {
            let path = folder + "/" + file.path
            guard let bytes = try? FileBytes.read(path) else {
                drifts.append(.missing(path: path))
                continue
            }
            if let drift = Drift.compare(expected: file.text, found: String(decoding: bytes, as: UTF8.self), path: path) {
                drifts.append(drift)
            }
        }
        guard drifts.isEmpty else {
            throw CLIError(
                .outOfDate,
                "the generated types in \(folder) are not the library's (run fusion types with --out \(folder)):\n"
                    + drifts.map(\.description).joined(separator: "\n"))
        }
    }

    static func write(_ generated: [GeneratedFiles], into folder: String) throws(CLIError) {
        for file in generated.flatMap(\.files) {
            let path = folder + "/" + file.path
            try makeFolders(for: path)
            guard let handle = fopen(path, "w") else {
                throw CLIError(.failure, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            let failed = fputs(file.text, handle) < 0
            if fclose(handle) != 0 || failed { throw CLIError(.failure, "cannot write \(path): \(String(cString: strerror(errno)))") }
            Terminal.write(path + "\n")
        }
    }

    /// mkdir -p of the folders `path` is in.
    private static func makeFolders(for path: String) throws(CLIError) {
        var parent = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            parent += (parent.isEmpty && !path.hasPrefix("/") ? "" : "/") + part
            var info = stat()
            if !parent.isEmpty, stat(parent, &info) != 0, mkdir(parent, 0o755) != 0 {
                throw CLIError(.failure, "cannot create \(parent): \(String(cString: strerror(errno)))")
            }
        }
    }
}
