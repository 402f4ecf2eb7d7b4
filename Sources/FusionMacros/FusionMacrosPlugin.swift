@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// The compiler plugin that expands FusionKit's macros. It is built against the
/// toolchain's own swift-syntax (`usr/lib/swift/host`), not the swift-syntax package:
/// every build folder (debug, release, each sanitizer) would otherwise compile
/// swift-syntax first, minutes each on two cores (Package.swift says where it is found).
@main
struct FusionMacrosPlugin {
    static func main() throws {
        let handler = PluginProviderMessageHandler(provider: Provider())
        try CompilerPluginMessageListener(connection: PluginConnection(), messageHandler: handler).main()
    }
}

/// The macros by the type names `#externalMacro` gives.
struct Provider: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        switch typeName {
        case "JSONCodedMacro": return JSONCodedMacro.self
        case "NativeJSONCodedMacro": return NativeJSONCodedMacro.self
        case "ExportLibraryMacro": return ExportLibraryMacro.self
        case "ExportLibraryDeclarationMacro": return ExportLibraryDeclarationMacro.self
        case "ExportWasmLibraryMacro": return ExportWasmLibraryMacro.self
        default: throw UnknownMacro(name: "\(moduleName).\(typeName)")
        }
    }

    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {
        throw UnknownMacro(name: "\(moduleName) (this plugin loads no libraries)")
    }
}

struct UnknownMacro: Error, CustomStringConvertible {
    let name: String
    var description: String { "FusionMacros has no macro \(name)" }
}
