@_spi(Reflection) import Swift

/// Decides which structs may skip their own `encode(to:)`, and builds `EncodingPlan`s.
///
/// A struct is written from memory only when, on a real value, its `encode(to:)` asked
/// for one keyed container and wrote into it, in order, exactly its stored properties
/// (as the runtime's field metadata lists them), each under its own name, with the
/// property's own type and (for numbers, booleans and strings) the very value stored.
/// That is what a synthesized conformance does; custom `CodingKeys`, computed keys,
/// skipped or reordered properties, nested containers, single-value containers, `weak`
/// or `unowned` properties all fail the check, and such a type keeps its `encode(to:)`.
/// Then the plan is run on the same value and must write the very bytes the encode
/// wrote, which catches transformed values at any depth (`EncodingPlans.learn`).
///
/// The evidence is an `EncodeRecord` taken during an ordinary encode of the type (the
/// first one), so judging calls no `encode(to:)` of the type beyond encoding it (the
/// replay may call its members' own). A custom `encode(to:)` that behaves like the
/// synthesized one on that first value and differently on later ones is not caught;
/// docs/performance.md says so.
enum EncodingPlanBuilder {
    /// What is known about a struct type.
    enum Verdict {
        /// Written member by member: its stored properties, in order.
        case plain([(name: String, offset: Int, type: any Encodable.Type)])
        /// Through its own `encode(to:)`.
        case custom
    }

    /// Judges a recorded type by the rules above.
    static func verdict(from record: EncodeRecord) -> Verdict {
        guard isStruct(record.type), record.fieldsArePlain, record.isPlainKeyed else { return .custom }
        var fields: [(name: String, offset: Int, type: Any.Type)] = []
        let listed = _forEachField(of: record.type) { name, offset, type, _ in
            fields.append((String(cString: name), offset, type))
            return true
        }
        // A first member "_0" is how an enum payload is written bare; the stream handles that.
        guard listed, fields.first?.name != "_0", fields.count == record.members.count else { return .custom }
        var members: [(name: String, offset: Int, type: any Encodable.Type)] = []
        let matches = record.withValue { value in
            for (field, written) in zip(fields, record.members) {
                guard written.key == field.name, written.type == field.type,
                    sameLeafValue(written.value, at: value + field.offset, of: field.type),
                    let encodable = field.type as? any Encodable.Type
                else { return false }
                members.append((field.name, field.offset, encodable))
            }
            return true
        }
        return matches ? .plain(members) : .custom
    }

    /// The plan for `T`, from the verdicts known so far, by type.
    static func plan<T: Encodable>(for type: T.Type, verdicts: [ObjectIdentifier: Verdict]) -> EncodingPlan {
        var session = Session(verdicts: verdicts)
        return EncodingPlan(node: session.node(T.self))
    }

    struct Session {
        let verdicts: [ObjectIdentifier: Verdict]
        /// The structs being planned further up: a recursive type is left to `Encodable`
        /// where it recurs (planning it again would unroll it without end).
        private var inProgress: [ObjectIdentifier] = []

        init(verdicts: [ObjectIdentifier: Verdict]) {
            self.verdicts = verdicts
        }

        mutating func node<T: Encodable>(_ type: T.Type) -> EncodingPlan.Node {
            if let leaf = leaf(T.self) { return .leaf(leaf) }
            if let array = T.self as? any PlannableArray.Type { return array.arrayNode(&self) }
            if let optional = T.self as? any PlannableOptional.Type { return optional.optionalNode(&self) }
            // Only structs are planned: the other numbers, enums, classes and tuples keep
            // their encode(to:).
            let id = ObjectIdentifier(T.self)
            guard !inProgress.contains(id), isStruct(T.self), !(T.self is any BinaryInteger.Type), T.self != Float.self else {
                return .codable(.of(T.self))
            }
            switch verdicts[id] {
            case nil:
                return .unresolved(.unresolved(T.self))
            case .custom:
                return .codable(.of(T.self))
            case .plain(let fields):
                inProgress.append(id)
                defer { inProgress.removeLast() }
                var members: [(key: String, offset: Int, node: EncodingPlan.Node)] = []
                for field in fields { members.append((field.name, field.offset, node(field.type))) }
                return .object(members)
            }
        }

        fileprivate mutating func arrayNode<Element: Encodable>(of type: Element.Type) -> EncodingPlan.Node {
            .array(.of(Element.self), element: node(Element.self))
        }

        fileprivate mutating func optionalNode<Wrapped: Encodable>(of type: Wrapped.Type) -> EncodingPlan.Node {
            .optional(.of(Wrapped.self), wrapped: node(Wrapped.self))
        }
    }

    /// Whether `type` is a struct: the kind word at the start of its metadata, which the
    /// Swift ABI fixes (0x200; enums are 0x201, optionals 0x202, classes 0 or a pointer).
    static func isStruct(_ type: Any.Type) -> Bool {
        unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee == 0x200
    }

    static func leaf(_ type: Any.Type) -> EncodingPlan.Leaf? {
        if type == Int.self { return .int }
        if type == Bool.self { return .bool }
        if type == Double.self { return .double }
        if type == String.self { return .string }
        if type == Int?.self { return .optionalInt }
        if type == Bool?.self { return .optionalBool }
        if type == Double?.self { return .optionalDouble }
        if type == String?.self { return .optionalString }
        return nil
    }

    /// For leaf types, whether what `encode(to:)` wrote is the stored value; true for others.
    private static func sameLeafValue(_ written: Any, at address: UnsafeRawPointer, of type: Any.Type) -> Bool {
        switch leaf(type) {
        case .int: return written as? Int == address.load(as: Int.self)
        case .bool: return written as? Bool == address.load(as: Bool.self)
        case .double: return (written as? Double)?.bitPattern == address.load(as: Double.self).bitPattern
        case .string: return written as? String == address.assumingMemoryBound(to: String.self).pointee
        case .optionalInt: return written as? Int? == address.assumingMemoryBound(to: Int?.self).pointee
        case .optionalBool: return written as? Bool? == address.assumingMemoryBound(to: Bool?.self).pointee
        case .optionalDouble:
            return (written as? Double?).map { $0?.bitPattern } == address.assumingMemoryBound(to: Double?.self).pointee?.bitPattern
        case .optionalString: return written as? String? == address.assumingMemoryBound(to: String?.self).pointee
        case nil: return true
        }
    }
}

/// Arrays and optionals, recognised by conformance so their type parameter can be opened.
protocol PlannableArray { static func arrayNode(_ session: inout EncodingPlanBuilder.Session) -> EncodingPlan.Node }
protocol PlannableOptional { static func optionalNode(_ session: inout EncodingPlanBuilder.Session) -> EncodingPlan.Node }

extension Array: PlannableArray where Element: Encodable {
    static func arrayNode(_ session: inout EncodingPlanBuilder.Session) -> EncodingPlan.Node {
        session.arrayNode(of: Element.self)
    }
}

extension Optional: PlannableOptional where Wrapped: Encodable {
    static func optionalNode(_ session: inout EncodingPlanBuilder.Session) -> EncodingPlan.Node {
        session.optionalNode(of: Wrapped.self)
    }
}
