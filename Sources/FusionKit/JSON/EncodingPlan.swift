/// How to write values of one `Encodable` type without going through `Encoder`.
///
/// A plain struct's synthesized `encode(to:)` writes its stored properties, in order,
/// under their own names. For such a type the plan is a flat program: literal JSON text
/// (`{"id":`, `,"name":`, `}`, with nested structs inlined) between reads of numbers,
/// booleans and strings at fixed byte offsets in the value. Writing a value walks that
/// program over memory: no `Encoder` calls, no `KeyedEncodingContainer` boxes, no
/// generic metadata lookups, no reference counting per member. `EncodingPlanBuilder`
/// decides which types qualify (see there); everything else (enums, classes, custom
/// `encode(to:)`, dictionaries) is a `codable` step that hands the value to the
/// streaming `Encoder`, so the output is byte for byte the same either way.
@usableFromInline
final class EncodingPlan: @unchecked Sendable {
    // Immutable once built, then shared by every thread that encodes the type.

    /// What the builder found, before it is flattened into a program.
    indirect enum Node {
        case leaf(Leaf)
        /// A struct written member by member: key, byte offset, the member's plan.
        case object([(key: String, offset: Int, node: Node)])
        /// An array; its elements follow `element`.
        case array(ArrayAccess, element: Node)
        /// An optional whose wrapped value follows `wrapped`.
        case optional(OptionalAccess, wrapped: Node)
        /// Through `Encodable`, into the same stream.
        case codable(CodableAccess)
        /// A struct not seen with a value yet: through `Encodable`, and the plan is worth
        /// building again once a value has turned up.
        case unresolved(CodableAccess)
    }

    enum Leaf {
        case int, bool, double, string, optionalInt, optionalBool, optionalDouble, optionalString
    }

    private enum Kind: UInt8 {
        case literal, int, bool, double, string, optionalInt, optionalBool, optionalDouble, optionalString
        case array, optional, codable, unresolved
    }

    /// One instruction. Plain data, so walking the program touches no reference counts.
    private struct Op {
        var kind: Kind
        /// Where the value is, from the start of the planned value.
        var offset: Int = 0
        /// For literals: their bytes in `text`.
        var start: Int = 0
        var length: Int = 0
        /// For arrays and optionals: the element's or wrapped value's plan in `children`.
        var child: Int = 0
        /// For arrays, optionals and codable steps: their code in the access lists.
        var access: Int = 0
    }

    let hasUnresolvedParts: Bool
    /// Whether writing a value runs nothing but this program: no `encode(to:)` of any
    /// type, so no code of the feature's (which could call back into its store).
    @usableFromInline let runsOnlyItself: Bool
    private let ops: UnsafeMutableBufferPointer<Op>
    private let text: UnsafeMutableBufferPointer<UInt8>
    private let children: [EncodingPlan]
    private let arrays: [ArrayAccess]
    private let optionals: [OptionalAccess]
    private let codables: [CodableAccess]

    init(node: Node) {
        var program = Program()
        program.compile(node, at: 0)
        hasUnresolvedParts = program.unresolved
        runsOnlyItself = !program.callsOut
        ops = .allocate(capacity: program.ops.count)
        _ = ops.initialize(from: program.ops)
        // Eight bytes of padding: StreamWriter.appendPadded copies in whole words.
        text = .allocate(capacity: program.text.count + 8)
        _ = text.initialize(from: program.text + [UInt8](repeating: 0, count: 8))
        children = program.children
        arrays = program.arrays
        optionals = program.optionals
        codables = program.codables
    }

    deinit {
        ops.deallocate()
        text.deallocate()
    }

    /// Writes the value at `value` (of this plan's type). An unresolved part that meets a
    /// value turns recording on in `writer`, for the plan to be completed afterwards.
    func write(_ value: UnsafeRawPointer, to writer: StreamWriter) throws {
        let base = text.baseAddress!
        for op in UnsafeBufferPointer(ops) {
            let field = value + op.offset
            switch op.kind {
            case .literal:
                writer.appendPadded(base + op.start, count: op.length)
            case .int:
                writer.writeInteger(field.load(as: Int.self))
            case .bool:
                writer.writeBool(field.load(as: Bool.self))
            case .double:
                try writer.writeDouble(field.load(as: Double.self))
            case .string:
                writer.writeString(at: field.assumingMemoryBound(to: String.self))
            case .optionalInt:
                if let int = field.assumingMemoryBound(to: Int?.self).pointee { writer.writeInteger(int) } else { writer.writeNull() }
            case .optionalBool:
                if let bool = field.assumingMemoryBound(to: Bool?.self).pointee { writer.writeBool(bool) } else { writer.writeNull() }
            case .optionalDouble:
                if let double = field.assumingMemoryBound(to: Double?.self).pointee {
                    try writer.writeDouble(double)
                } else {
                    writer.writeNull()
                }
            case .optionalString:
                if let string = field.assumingMemoryBound(to: String?.self).pointee {
                    writer.writeString(string)
                } else {
                    writer.writeNull()
                }
            case .array:
                try arrays[op.access].write(field, children[op.child], writer)
            case .optional:
                try optionals[op.access].write(field, children[op.child], writer)
            case .codable, .unresolved:
                try codables[op.access].write(field, writer)
            }
        }
    }

    /// The program as it is being built.
    private struct Program {
        var ops: [Op] = []
        var text: [UInt8] = []
        var children: [EncodingPlan] = []
        var arrays: [ArrayAccess] = []
        var optionals: [OptionalAccess] = []
        var codables: [CodableAccess] = []
        var unresolved = false
        var callsOut = false

        mutating func compile(_ node: Node, at offset: Int) {
            switch node {
            case .leaf(let leaf):
                let kind: Kind =
                    switch leaf {
                    case .int: .int
                    case .bool: .bool
                    case .double: .double
                    case .string: .string
                    case .optionalInt: .optionalInt
                    case .optionalBool: .optionalBool
                    case .optionalDouble: .optionalDouble
                    case .optionalString: .optionalString
                    }
                ops.append(Op(kind: kind, offset: offset))
            case .object(let members):
                literal([UInt8(ascii: "{")])
                for (index, member) in members.enumerated() {
                    var key = JSONWriter(reservingCapacity: member.key.utf8.count + 4)
                    if index > 0 { key.writeRaw(",") }
                    key.writeString(member.key)
                    key.writeRaw(":")
                    literal(key.bytes)
                    compile(member.node, at: offset + member.offset)
                }
                literal([UInt8(ascii: "}")])
            case .array(let access, let element):
                arrays.append(access)
                ops.append(Op(kind: .array, offset: offset, child: addChild(element), access: arrays.count - 1))
            case .optional(let access, let wrapped):
                optionals.append(access)
                ops.append(Op(kind: .optional, offset: offset, child: addChild(wrapped), access: optionals.count - 1))
            case .codable(let access):
                callsOut = true
                codables.append(access)
                ops.append(Op(kind: .codable, offset: offset, access: codables.count - 1))
            case .unresolved(let access):
                unresolved = true
                callsOut = true
                codables.append(access)
                ops.append(Op(kind: .unresolved, offset: offset, access: codables.count - 1))
            }
        }

        /// A sub-plan (an array's elements, an optional's value); returns its index.
        mutating func addChild(_ node: Node) -> Int {
            let child = EncodingPlan(node: node)
            unresolved = unresolved || child.hasUnresolvedParts
            callsOut = callsOut || !child.runsOnlyItself
            children.append(child)
            return children.count - 1
        }

        /// Appends literal text, joined to the previous literal when it comes right before.
        mutating func literal(_ bytes: [UInt8]) {
            if let last = ops.last, last.kind == .literal, last.start + last.length == text.count {
                ops[ops.count - 1].length += bytes.count
            } else {
                ops.append(Op(kind: .literal, start: text.count, length: bytes.count))
            }
            text.append(contentsOf: bytes)
        }
    }
}

/// Type-specific code a plan step needs, made once per type by opening it generically.
struct CodableAccess: @unchecked Sendable {
    /// Writes the value through its `encode(to:)`.
    let write: (UnsafeRawPointer, StreamWriter) throws -> Void
}

struct ArrayAccess: @unchecked Sendable {
    let write: (UnsafeRawPointer, EncodingPlan, StreamWriter) throws -> Void
}

struct OptionalAccess: @unchecked Sendable {
    let write: (UnsafeRawPointer, EncodingPlan, StreamWriter) throws -> Void
}

extension CodableAccess {
    static func of<T: Encodable>(_ type: T.Type) -> CodableAccess {
        CodableAccess { value, writer in
            try writer.writeValue(value.assumingMemoryBound(to: T.self).pointee)
        }
    }

    /// For a struct planned as `.unresolved`: through `Encodable`, recorded, so that the
    /// encode that met it can complete the plan (see `JSONStreamEncoder.encode`).
    static func unresolved<T: Encodable>(_ type: T.Type) -> CodableAccess {
        CodableAccess { value, writer in
            if writer.recording == nil { writer.recording = EncodeRecording() }
            try writer.writeValue(value.assumingMemoryBound(to: T.self).pointee)
        }
    }
}

extension ArrayAccess {
    static func of<Element>(_ type: Element.Type) -> ArrayAccess {
        ArrayAccess { value, element, writer in
            try value.assumingMemoryBound(to: [Element].self).pointee.withUnsafeBufferPointer { elements throws in
                writer.append(UInt8(ascii: "["))
                if var address = elements.baseAddress {
                    for index in 0..<elements.count {
                        if index > 0 { writer.append(UInt8(ascii: ",")) }
                        try element.write(UnsafeRawPointer(address), to: writer)
                        address += 1
                    }
                }
                writer.append(UInt8(ascii: "]"))
            }
        }
    }
}

extension OptionalAccess {
    static func of<Wrapped>(_ type: Wrapped.Type) -> OptionalAccess {
        OptionalAccess { value, wrapped, writer in
            guard let present = value.assumingMemoryBound(to: Wrapped?.self).pointee else {
                writer.writeNull()
                return
            }
            try withUnsafePointer(to: present) { try wrapped.write(UnsafeRawPointer($0), to: writer) }
        }
    }
}
