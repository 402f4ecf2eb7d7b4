import SwiftSyntax
import SwiftSyntaxMacros

/// `@ExportLibrary` on the function that returns a library's `FusionLibrary`: adds the
/// entry point the C ABI looks the library up by (`fusionkit_library`), so that the
/// author writes an ordinary function and no linker attribute.
public struct ExportLibraryMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let function = declaration.as(FunctionDeclSyntax.self), function.signature.parameterClause.parameters.isEmpty,
            function.signature.effectSpecifiers == nil, function.genericParameterClause == nil
        else {
            throw MacroExpansionErrorMessage(
                "@ExportLibrary goes on a function without parameters that returns the library: func fusionLibrary() -> FusionLibrary")
        }
        return [
            """
            /// The C ABI's entry point (include/fusionkit.h): made by @ExportLibrary.
            @_silgen_name("fusionkit_library")
            public func _fusionkitLibraryEntry() -> FusionKit.FusionLibrary { \(function.name.trimmed)() }
            """
        ]
    }
}
