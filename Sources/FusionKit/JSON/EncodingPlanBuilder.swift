@_spi(Reflection) import Swift

/// Builds `EncodingPlan`s, and decides when a struct may skip its own `encode(to:)`.
///
/// A struct is planned member by member only when, on a real value, its `encode(to:)`
/// asked for one keyed container and wrote into it, in order, exactly its stored
/// properties (as the runtime's field metadata lists them), each under its own name,
/// with the property's own type, and (for numbers, booleans and strings) the very value
/// stored. That is what a synthesized conformance does; custom `CodingKeys`, computed
/// keys, skipped or reordered properties, nested containers or transformed values all
/// fail the check, and such a type keeps its `encode(to:)`. The check runs on the first
/// value of each type that is encoded; a custom `encode(to:)` that behaves like the
/// synthesized one on that value and differently on later ones is not caught (see
/// docs/performance.md).
///
/// Plans need a value to check against, so a struct met only inside an empty array or
/// an absent optional is `.unresolved` (encoded through `Encodable`) until a later value
/// has one; `EncodingPlans` then builds the plan again.
struct EncodingPlanBuilder {
    /// How deep nested plans go before the rest is left to `Encodable` (recursive types).
    static let depthLimit = 32
    private var depth = 0

    /// The plan for `T`, checked against the value at `value`.
    static func plan<T: Encodable>(for type: T.Type, value: UnsafeRawPointer) -> EncodingPlan {
        var builder = EncodingPlanBuilder()
        return EncodingPlan(type: T.self, node: builder.plan(T.self, value: value))
    }

    /// What to do for `T`, checked against the value at `value` (nil: no value at hand).
    mutating func plan<T: Encodable>(_ type: T.Type, value: UnsafeRawPointer?) -> EncodingPlan.Node {
        if let leaf = Self.leaf(T.self) { return .leaf(leaf) }
        if let array = T.self as? any PlannableArray.Type { return array.arrayPlan(&self, value: value) }
        if let optional = T.self as? any PlannableOptional.Type { return optional.optionalPlan(&self, value: value) }
        // Classes keep their encode(to:) (reference semantics, inheritance); enums and
        // tuples list no stored properties that a synthesized encode(to:) would write, so
        // the check in structPlan turns them down.
        guard !(T.self is AnyClass), depth < Self.depthLimit else {
            return .codable(.of(T.self))
        }
        guard let value else { return .unresolved(.unresolved(T.self)) }
        depth += 1
        defer { depth -= 1 }
        return structPlan(T.self, value: value) ?? .codable(.of(T.self))
    }

    private static func leaf(_ type: Any.Type) -> EncodingPlan.Leaf? {
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

    private struct Field {
        let name: String
        let offset: Int
        let type: Any.Type
    }

    /// Member by member, when `encode(to:)` passes the check above; nil otherwise.
    private mutating func structPlan<T: Encodable>(_ type: T.Type, value: UnsafeRawPointer) -> EncodingPlan.Node? {
        var fields: [Field] = []
        let listed = _forEachField(of: T.self) { name, offset, fieldType, _ in
            fields.append(Field(name: String(cString: name), offset: offset, type: fieldType))
            return true
        }
        // A first member "_0" is how an enum payload is written bare; leave that to the stream.
        guard listed, fields.first?.name != "_0" else { return nil }

        let recorder = EncodeRecorder()
        do {
            try value.assumingMemoryBound(to: T.self).pointee.encode(to: recorder)
        } catch {
            return nil
        }
        guard recorder.isPlainKeyed, recorder.members.count == fields.count else { return nil }

        var members: [(key: String, offset: Int, node: EncodingPlan.Node)] = []
        for (field, written) in zip(fields, recorder.members) {
            guard written.key == field.name, written.type == field.type,
                  Self.sameLeafValue(written.value, at: value + field.offset, of: field.type),
                  let encodable = field.type as? any Encodable.Type
            else { return nil }
            members.append((field.name, field.offset, plan(encodable, value: value + field.offset)))
        }
        return .object(members)
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
        default: return true
        }
    }

    // Called by the Array and Optional extensions below, with their type parameters opened.

    fileprivate mutating func arrayPlan<Element: Encodable>(of type: Element.Type, value: UnsafeRawPointer?) -> EncodingPlan.Node {
        let elementPlan: EncodingPlan.Node
        if let value, let first = value.assumingMemoryBound(to: [Element].self).pointee.first {
            elementPlan = withUnsafePointer(to: first) { plan(Element.self, value: UnsafeRawPointer($0)) }
        } else {
            elementPlan = plan(Element.self, value: nil)
        }
        return .array(.of(Element.self), element: elementPlan)
    }

    fileprivate mutating func optionalPlan<Wrapped: Encodable>(of type: Wrapped.Type, value: UnsafeRawPointer?) -> EncodingPlan.Node {
        let wrappedPlan: EncodingPlan.Node
        if let value, let present = value.assumingMemoryBound(to: Wrapped?.self).pointee {
            wrappedPlan = withUnsafePointer(to: present) { plan(Wrapped.self, value: UnsafeRawPointer($0)) }
        } else {
            wrappedPlan = plan(Wrapped.self, value: nil)
        }
        return .optional(.of(Wrapped.self), wrapped: wrappedPlan)
    }
}

/// Arrays and optionals, recognised by conformance so their type parameter can be opened.
protocol PlannableArray { static func arrayPlan(_ builder: inout EncodingPlanBuilder, value: UnsafeRawPointer?) -> EncodingPlan.Node }
protocol PlannableOptional { static func optionalPlan(_ builder: inout EncodingPlanBuilder, value: UnsafeRawPointer?) -> EncodingPlan.Node }

extension Array: PlannableArray where Element: Encodable {
    static func arrayPlan(_ builder: inout EncodingPlanBuilder, value: UnsafeRawPointer?) -> EncodingPlan.Node {
        builder.arrayPlan(of: Element.self, value: value)
    }
}

extension Optional: PlannableOptional where Wrapped: Encodable {
    static func optionalPlan(_ builder: inout EncodingPlanBuilder, value: UnsafeRawPointer?) -> EncodingPlan.Node {
        builder.optionalPlan(of: Wrapped.self, value: value)
    }
}
