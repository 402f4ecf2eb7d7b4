import Foundation
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@JSONCoded`: writes a type's `JSONCoded` conformance from its declaration. The code
/// it generates names no field type (a nested type's siblings are not in scope in an
/// extension): types come from the properties and cases themselves, and every rule is a
/// call into `JSONCodedSupport`, written once in FusionKit.
public struct JSONCodedMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try extensions(of: declaration, type: type, protocols: protocols, native: false)
    }

    /// The extensions: `JSONCoded` where the type lacks it, and in the native build also an
    /// empty `Codable` one, for Swift to synthesize (it does so only for a conformance
    /// declared in the type's own file, and a refined protocol's does not count).
    static func extensions(
        of declaration: some DeclGroupSyntax, type: some TypeSyntaxProtocol, protocols: [TypeSyntax], native: Bool
    ) throws -> [ExtensionDeclSyntax] {
        let access = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        let typeName = type.trimmedDescription
        let members: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            members = try structMembers(structDecl, typeName: typeName, access: access)
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            members = try enumMembers(enumDecl, typeName: typeName, access: access)
        } else {
            throw MacroExpansionErrorMessage("@JSONCoded applies to a struct or an enum")
        }
        // `protocols` holds those of the macro's conformances the type lacks.
        let names = protocols.map(\.trimmedDescription)
        var extensions: [ExtensionDeclSyntax] = []
        // The members always; the conformance unless the type states it itself.
        let conformance = names.contains(where: { $0 == "JSONCoded" || $0.hasSuffix(".JSONCoded") }) ? ": FusionKit.JSONCoded" : ""
        let decl: DeclSyntax = "extension \(type.trimmed)\(raw: conformance) {\n\(raw: members)\n}"
        extensions.append(decl.cast(ExtensionDeclSyntax.self))
        if native {
            // Empty: Swift synthesizes it, in the same file as the type.
            let decl: DeclSyntax = "extension \(type.trimmed): Codable {}"
            extensions.append(decl.cast(ExtensionDeclSyntax.self))
        }
        return extensions
    }

    // MARK: Structs

    struct StoredProperty {
        let name: String
        /// False for a `let` with an initial value: written, never read back (as Codable does).
        let decoded: Bool
    }

    static func storedProperties(_ decl: StructDeclSyntax) -> [StoredProperty] {
        var properties: [StoredProperty] = []
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }) { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                properties.append(
                    StoredProperty(name: pattern.identifier.trimmedDescription, decoded: !(isLet && binding.initializer != nil)))
            }
        }
        return properties
    }

    /// A property with a getter is computed; one with only observers is stored.
    static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
        switch block.accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains {
                [.keyword(.get), .keyword(.set), .keyword(._read), .keyword(._modify)].contains($0.accessorSpecifier.tokenKind)
            }
        @unknown default: return true
        }
    }

    static func structMembers(_ decl: StructDeclSyntax, typeName: String, access: String) throws -> String {
        let properties = storedProperties(decl)
        var write = "    \(access)func writeJSON(into writer: inout FusionKit.JSONWriter) {\n"
        if properties.isEmpty { write += "        writer.writeRaw(\"{}\")\n" }
        for (index, property) in properties.enumerated() {
            let opening = index == 0 ? "{" : ","
            write += "        writer.writeRaw(\(literal("\(opening)\"\(property.name)\":")))\n"
            write += "        self.\(property.name).writeJSON(into: &writer)\n"
        }
        if !properties.isEmpty { write += "        writer.writeRaw(\"}\")\n" }
        write += "    }\n"

        var read = "    \(access)init(json: FusionKit.JSONValue) throws(FusionKit.JSONCodingError) {\n"
        read += "        let members = try FusionKit.JSONCodedSupport.members(of: json)\n"
        read += "        let derived = FusionKit.JSONCodedSupport.derivedFields(of: Self.self)\n"
        for property in properties where property.decoded {
            read +=
                "        self.\(property.name) = try FusionKit.JSONCodedSupport.field(\(literal(property.name)), in: members, derived: derived)\n"
        }
        if properties.allSatisfy({ $0.decoded }) == false || properties.isEmpty { read += "        _ = (members, derived)\n" }
        read += "    }\n"

        var shape = "    \(access)static var jsonShape: FusionKit.Shape {\n"
        shape += "        .object(name: \(literal(typeName)), fields: [\n"
        shape += properties.map {
            "            FusionKit.JSONCodedSupport.field(\(literal($0.name))) { (value: Self) in value.\($0.name) }"
        }
        .joined(separator: ",\n")
        shape += "\n        ])\n    }"
        return write + "\n" + read + "\n" + shape
    }

    // MARK: Enums

    struct Case {
        let name: String
        /// The labels of its values; one nil for a single unlabeled value.
        let labels: [String?]
        let rawValue: String?
    }

    static func cases(_ decl: EnumDeclSyntax) -> [Case] {
        decl.memberBlock.members.flatMap { member -> [Case] in
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { return [] }
            return caseDecl.elements.map { element in
                let labels = element.parameterClause?.parameters.map { $0.firstName?.trimmedDescription } ?? []
                var raw: String?
                if let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self) {
                    raw = literal.segments.compactMap { $0.as(StringSegmentSyntax.self)?.content.text }.joined()
                }
                return Case(name: element.name.trimmedDescription, labels: labels, rawValue: raw)
            }
        }
    }

    static func enumMembers(_ decl: EnumDeclSyntax, typeName: String, access: String) throws -> String {
        let all = cases(decl)
        let inherited = decl.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        if inherited.contains("String") { return stringEnumMembers(all, typeName: typeName, access: access) }
        for item in all {
            if item.labels.count > 1, item.labels.contains(where: { $0 == nil || $0 == "_" }) {
                throw MacroExpansionErrorMessage("@JSONCoded: give every value of case \(item.name) a label (its JSON field name)")
            }
            if item.labels.count > 6 {
                throw MacroExpansionErrorMessage("@JSONCoded: case \(item.name) has more than 6 values; group them in a struct")
            }
        }
        var write = "    \(access)func writeJSON(into writer: inout FusionKit.JSONWriter) {\n        switch self {\n"
        var read = "    \(access)init(json: FusionKit.JSONValue) throws(FusionKit.JSONCodingError) {\n"
        read += "        let (name, payload) = try FusionKit.JSONCodedSupport.taggedCase(json)\n        switch name {\n"
        var shapes: [String] = []
        for item in all {
            let name = literal(item.name)
            if item.labels.isEmpty {
                write += "        case .\(item.name): writer.writeRaw(\(literal("{\"\(item.name)\":{}}")))\n"
                read += "        case \(name): self = .\(item.name)\n"
                shapes.append("FusionKit.Shape.Case(name: \(name), fields: [])")
            } else if item.labels.count == 1, item.labels[0] == nil {
                write += "        case .\(item.name)(let value):\n"
                write += "            writer.writeRaw(\(literal("{\"\(item.name)\":")))\n"
                write += "            value.writeJSON(into: &writer)\n            writer.writeRaw(\"}\")\n"
                read += "        case \(name): self = .\(item.name)(try FusionKit.JSONCodedSupport.value(payload, case: \(name)))\n"
                shapes.append(
                    "FusionKit.Shape.Case(name: \(name), fields: [], value: FusionKit.JSONCodedSupport.shapes(of: Self.\(item.name))[0])")
            } else {
                let labels = item.labels.map { $0! }
                let bindings = labels.map { "let \($0)" }.joined(separator: ", ")
                write += "        case .\(item.name)(\(bindings)):\n"
                for (index, label) in labels.enumerated() {
                    let opening = index == 0 ? "{\"\(item.name)\":{" : ","
                    write += "            writer.writeRaw(\(literal("\(opening)\"\(label)\":")))\n"
                    write += "            \(label).writeJSON(into: &writer)\n"
                }
                write += "            writer.writeRaw(\"}}\")\n"
                let arguments = labels.map { "\($0): try FusionKit.JSONCodedSupport.field(\(literal($0)), ofCase: \(name), in: payload)" }
                read += "        case \(name): self = .\(item.name)(\(arguments.joined(separator: ", ")))\n"
                let fullName = "\(item.name)(\(labels.map { "\($0):" }.joined()))"
                shapes.append(
                    "FusionKit.Shape.Case(name: \(name), fields: FusionKit.JSONCodedSupport.fields([\(labels.map(literal).joined(separator: ", "))], FusionKit.JSONCodedSupport.shapes(of: Self.\(fullName))))"
                )
            }
        }
        write += "        }\n    }\n"
        if all.allSatisfy({ $0.labels.isEmpty }) { read = read.replacingOccurrences(of: "let (name, payload)", with: "let (name, _)") }
        let known = "[" + all.map { literal($0.name) }.joined(separator: ", ") + "]"
        read +=
            "        default: throw FusionKit.JSONCodedSupport.unknownCase(name, of: \(literal(typeName)), known: \(known))\n        }\n    }\n"
        let shape =
            "    \(access)static var jsonShape: FusionKit.Shape {\n        .taggedUnion(name: \(literal(typeName)), cases: [\n            "
            + shapes.joined(separator: ",\n            ") + "\n        ])\n    }"
        return write + "\n" + read + "\n" + shape
    }

    static func stringEnumMembers(_ all: [Case], typeName: String, access: String) -> String {
        let values = "[" + all.map { literal($0.rawValue ?? $0.name) }.joined(separator: ", ") + "]"
        return """
                \(access)func writeJSON(into writer: inout FusionKit.JSONWriter) { writer.writeString(self.rawValue) }

                \(access)init(json: FusionKit.JSONValue) throws(FusionKit.JSONCodingError) {
                    self = try FusionKit.JSONCodedSupport.rawValue(json, of: \(literal(typeName)), known: \(values), Self.init(rawValue:))
                }

                \(access)static var jsonShape: FusionKit.Shape { .stringEnum(name: \(literal(typeName)), values: \(values)) }
            """
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}

/// `@JSONCoded` in the native build (FusionKit declares the macro by this name there).
public struct NativeJSONCodedMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try JSONCodedMacro.extensions(of: declaration, type: type, protocols: protocols, native: true)
    }
}
