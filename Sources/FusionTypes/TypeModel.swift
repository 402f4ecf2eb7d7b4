import FusionJSON

/// What a library's features are made of, as types a front end's language can declare:
/// read from the manifest (`ManifestTypes`), written out by `TypeScriptWriter` and
/// `PythonWriter`. Names are the Swift ones, enclosing types included
/// (`ConnectToNetwork.State`); each writer spells them its own way.
public indirect enum TypeRef: Sendable, Equatable {
    case boolean
    case integer
    case number
    case string
    /// Any JSON value (a part whose `Codable` code could not be described).
    case any
    /// One of these strings (an unnamed string enum).
    case strings([String])
    case array(TypeRef)
    /// An object with arbitrary string keys.
    case dictionary(TypeRef)
    /// A value or null.
    case optional(TypeRef)
    /// An object with these fields and no name.
    case object([Property])
    /// A declared type, by its name.
    case named(String)
}

public struct Property: Sendable, Equatable {
    public var name: String
    public var type: TypeRef
    /// False: the key may be left out.
    public var required: Bool
}

/// A type that gets a name of its own in the generated code.
public struct Declaration: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// A struct: `{"field": …}`.
        case object([Property])
        /// A `String`-backed enum: one of the strings.
        case strings([String])
        /// An enum with payloads: each case written `{"case": payload}`.
        case union([UnionCase])
        /// A feature's input: each case as the bridge and the C ABI take it.
        case input([InputCase])
    }

    /// The Swift name, enclosing types joined by dots.
    public var name: String
    public var body: Body
    /// Where it comes from, for a reader ("the state of wifi").
    public var note: String?
}

/// A case of an enum with payloads, as the wire format writes it.
public struct UnionCase: Sendable, Equatable {
    public enum Payload: Sendable, Equatable {
        /// `{"case": {labeled fields}}`; no fields: `{"case": {}}`.
        case fields([Property])
        /// `{"case": value}`: one unlabeled value.
        case value(TypeRef)
    }

    public var name: String
    public var payload: Payload
}

/// An input case: sent bare (`"case"`, when no field is required) or as
/// `{"case": {fields}}` (the fields may be `null` then), or `{"case": value}`.
public struct InputCase: Sendable, Equatable {
    public var name: String
    public var fields: [Property]
    public var value: TypeRef?

    /// Whether the bare-string form is accepted.
    public var canBeBare: Bool { value == nil && !fields.contains(where: \.required) }
}

/// One feature's types: the names of its state and its input among the declarations.
public struct FeatureTypes: Sendable, Equatable {
    public var name: String
    public var summary: String
    public var state: TypeRef
    public var input: String
}

/// Everything generated for one library.
public struct LibraryTypes: Sendable, Equatable {
    public var libraryName: String
    /// The product whose shared library holds these features (`swift build --product
    /// Chores` makes libChores.so), which a generated loader looks for: the library's name
    /// unless the file read says otherwise.
    public var product: String
    public var libraryVersion: String
    public var features: [FeatureTypes]
    /// In order of first use; no two with one name.
    public var declarations: [Declaration]
}
