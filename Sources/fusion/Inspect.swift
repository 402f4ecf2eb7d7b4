import ArgumentParser
import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion inspect [LIB] [FEATURE]`: what a library offers, from its manifest.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a library's features: input cases with their fields and types, and the state's shape.",
        usage: "fusion inspect [LIB] [FEATURE] [--json]",
        discussion: """
            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """)

    @Argument(help: ArgumentHelp("The library (optional), then one feature to show alone (optional).", valueName: "lib-or-feature"))
    var words: [String] = []

    @Flag(help: "Print the library's manifest as JSON instead.")
    var json = false

    func validate() throws {
        if LibraryChoice.split(words).rest.count > 1 {
            throw ValidationError("inspect takes at most one FEATURE (libraries come first: a path, or a name ending in .so)")
        }
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        let (paths, rest) = LibraryChoice.split(words)
        let set = try LibraryChoice.load(paths, limits: plugin.limits)
        // What to show, library by library: all features, or the one named.
        // Inspecting shows every feature described: the whole manifest of each library.
        var shown: [(library: HostedLibrary, manifest: Manifest, features: [Manifest.Feature])] = try set.libraries.map {
            (library) throws(CLIError) in
            let manifest = try library.wholeManifest()
            return (library, manifest, manifest.features)
        }
        if let name = rest.first {
            let (library, feature) = try set.feature(named: name)
            shown = [(library, try library.wholeManifest(), [feature])]
        }
        if json {
            let documents = shown.map { _, manifest, features -> JSONValue in
                rest.isEmpty
                    ? manifest.json
                    : .array(
                        features.map { feature in
                            manifest.json["features"]?.elements?.first { $0["name"]?.stringValue == feature.name } ?? .null
                        })
            }
            // One library: its manifest as it is; several: a list of them.
            Terminal.write((documents.count == 1 ? documents[0] : .array(documents)).prettyText() + "\n")
            return
        }
        let style = Style.for(descriptor: STDOUT_FILENO)
        let text = shown.map { Self.describe($0.library, features: $0.features, style: style) }.joined(separator: "\n")
        Terminal.write(text)
    }

    static func describe(_ library: HostedLibrary, features: [Manifest.Feature], style: Style) -> String {
        let manifest = library.summary
        var out =
            style.bold("\(manifest.libraryName) \(manifest.libraryVersion)") + style.dim(" · ABI \(library.abiVersion) · \(library.path)")
            + "\n"
        let missing = HostedLibrary.abiFunctions.filter { !library.exports($0) }
        if library.isSandboxed {
            // A .wasm plugin: WebAssembly in WasmKit, which has no checkpoints or fk_limit.
            out += style.dim("  sandboxed (WebAssembly in WasmKit); a sandboxed plugin has no: \(missing.joined(separator: ", "))") + "\n"
        } else if !missing.isEmpty {
            out += style.dim("  predates: \(missing.joined(separator: ", "))") + "\n"
        }
        for feature in features {
            out += "\n" + style.prompt(feature.name) + "\n"
            if !feature.summary.isEmpty { out += "  \(feature.summary)\n" }
            if !feature.settings.isEmpty {
                out += "  " + style.bold("settings") + style.dim(" (the option \"settings\")") + "\n"
                for setting in feature.settings {
                    let summary = setting.summary.isEmpty ? "" : style.dim("  \(setting.summary)")
                    out += "    \(style.key(setting.name)): \(setting.type)" + summary + "\n"
                }
            }
            out += "  " + style.bold("inputs") + "\n"
            for input in feature.inputs {
                let fields = input.fields.map { field -> String in
                    let text = "\(style.key(field.name)): \(field.type)"
                    return field.required ? text : "[\(text)]"
                }
                out += "    " + ([style.bold(input.name)] + fields).joined(separator: " ") + "\n"
            }
            out += "  " + style.bold("state") + "\n"
            out += describeFields(of: feature.stateSchema, indent: 4, depth: 0, style: style)
        }
        return out
    }

    /// One line per property, and the properties of nested objects below their field.
    private static func describeFields(of schema: JSONValue, indent: Int, depth: Int, style: Style) -> String {
        var out = ""
        for property in SchemaText.properties(schema) {
            // Every field of a state is present; a "?" type may be null.
            out += String(repeating: " ", count: indent) + "\(style.key(property.name)): \(SchemaText.typeName(property.schema))\n"
            var inner = SchemaText.optionalWrapped(property.schema) ?? property.schema
            if inner["type"]?.stringValue == "array", let items = inner["items"] { inner = SchemaText.optionalWrapped(items) ?? items }
            guard depth < 3 else { continue }
            if !SchemaText.properties(inner).isEmpty {
                out += describeFields(of: inner, indent: indent + 2, depth: depth + 1, style: style)
            }
            // An enum with payloads (navigation state, say): one of its cases, each with its fields.
            for variant in inner["oneOf"]?.elements ?? [] {
                guard let (name, payload) = SchemaText.properties(variant).first.map({ ($0.name, $0.schema) }) else { continue }
                out += String(repeating: " ", count: indent + 2) + style.dim("case ") + style.bold(name) + "\n"
                out += describeFields(of: payload, indent: indent + 4, depth: depth + 1, style: style)
            }
        }
        return out
    }
}
