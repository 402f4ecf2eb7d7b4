import SwiftSyntax
import SwiftSyntaxMacros

/// `#exportLibrary(name:version:features:)`: a library's one registration line, for both
/// builds. It names the features as `Counter.self, …`; the native build declares
/// `fusionLibrary()` and the C ABI's entry point (`fusionkit_library`) from it, the
/// WebAssembly build (Embedded Swift, which has no metatypes as values) the module's
/// entry point (`fusionkit_wasm_library`), listing `WasmFeature<Counter>()`, … The
/// arguments are read as written, so the list is the one the author wrote, in order.
struct LibraryRegistration {
    let name: String
    let version: String
    /// The features' type names, as written before `.self`.
    let features: [String]

    init(_ node: some FreestandingMacroExpansionSyntax) throws {
        var name: String?
        var version: String?
        var features: [String] = []
        var inFeatures = false
        for argument in node.arguments {
            switch argument.label?.text {
            case "name": name = argument.expression.trimmedDescription; inFeatures = false
            case "version": version = argument.expression.trimmedDescription; inFeatures = false
            case "features": inFeatures = true
            case nil where inFeatures: break
            default: throw MacroExpansionErrorMessage(Self.usage)
            }
            guard inFeatures else { continue }
            guard let member = argument.expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
                let base = member.base
            else {
                throw MacroExpansionErrorMessage(
                    "#exportLibrary names each feature by its type, as `Counter.self`; found `\(argument.expression.trimmedDescription)`")
            }
            features.append(base.trimmedDescription)
        }
        guard let name, let version, !features.isEmpty else { throw MacroExpansionErrorMessage(Self.usage) }
        self.name = name
        self.version = version
        self.features = features
    }

    static let usage =
        "#exportLibrary takes the library's name and version and its features: #exportLibrary(name: \"MyFeatures\", version: \"1.0.0\", features: Counter.self, Answer.self)"
}

/// The native expansion: `fusionLibrary()` and the C ABI's entry point.
public struct ExportLibraryDeclarationMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let library = try LibraryRegistration(node)
        let features = library.features.map { "\($0).self" }.joined(separator: ", ")
        return [
            """
            /// The library: its name, version and features, as `#exportLibrary` lists them.
            public func fusionLibrary() -> FusionKit.FusionLibrary {
                FusionKit.FusionLibrary(name: \(raw: library.name), version: \(raw: library.version), features: [\(raw: features)])
            }
            """,
            """
            /// The C ABI's entry point (include/fusionkit.h): made by #exportLibrary.
            @_silgen_name("fusionkit_library")
            public func _fusionkitLibraryEntry() -> FusionKit.FusionLibrary { fusionLibrary() }
            """
        ]
    }
}

/// The WebAssembly expansion (Embedded Swift): the module's entry point.
public struct ExportWasmLibraryMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let library = try LibraryRegistration(node)
        let features = library.features.map { "FusionKit.WasmFeature<\($0)>()" }.joined(separator: ", ")
        return [
            """
            /// The WebAssembly module's entry point (docs/wasm.md): made by #exportLibrary.
            @_silgen_name("fusionkit_wasm_library")
            public func _fusionkitWasmLibrary() -> FusionKit.WasmLibrary {
                FusionKit.WasmLibrary(name: \(raw: library.name), version: \(raw: library.version), features: [\(raw: features)])
            }
            """
        ]
    }
}
