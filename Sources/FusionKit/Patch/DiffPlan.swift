#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the differ walks the values of one type in memory, made once per type: a struct
/// written member by member is its fields at their offsets, each with its own plan; an
/// array of such structs is its elements at their stride; strings, integers, doubles and
/// booleans are leaves compared and written by their type. Everything else (enums,
/// optionals, custom `encode(to:)`) is `other`, diffed by the generic `Differ` code.
///
/// Why: the generic differ runs unspecialized code for each field it visits, and looks
/// up generic metadata and conformances on every call; with a plan, a diff of states that
/// differ in one network compares raw bytes until it reaches what changed.
final class DiffPlan: @unchecked Sendable {
    enum Leaf {
        case string, int, double, bool
    }

    struct Field {
        /// The member's name as it goes in a JSON Pointer ("~" and "/" escaped), in UTF-8.
        let pointerName: [UInt8]
        let offset: Int
        let plan: DiffPlan
    }

    struct Elements {
        let plan: DiffPlan
        let stride: Int
        /// The byte ranges of an element's stored fields (`IdentityRanges`): equal there,
        /// equal elements.
        let ranges: [(offset: Int, length: Int)]
        /// The array at a pointer, as its first element's address and its count.
        let buffer: (UnsafeRawPointer) -> (UnsafeRawPointer?, Int)
        /// `==` of the elements at two addresses.
        let equal: (UnsafeRawPointer, UnsafeRawPointer) -> Bool
    }

    struct Wrapped {
        let plan: DiffPlan
        /// The optional type itself: its `isNil(at:)` is called through the metatype, which
        /// carries the type's metadata, so no call looks the optional's metadata up again
        /// (a closure made in generic code did, at every call).
        let optional: any DiffableOptional.Type

        /// Whether the optional at an address is nil.
        func isNil(_ value: UnsafeRawPointer) -> Bool { optional.isNil(at: value) }
    }

    enum Kind {
        case leaf(Leaf)
        case fields([Field])
        case elements(Elements)
        /// An optional of a planned type: nil, or its value walked in place.
        case optional(Wrapped)
        case other
    }

    let kind: Kind
    /// The type, for `other` and for arrays whose lengths differ: the generic differ's.
    let type: any Encodable.Type
    /// Where two values of the type must hold the same bits to be the same value: a
    /// struct's fields (not the padding between them, which a copy leaves undefined), an
    /// optional's value and tag, any other type's every byte. A field whose bits are the
    /// same there is skipped without being walked.
    let ranges: IdentityRanges.Ranges

    init(kind: Kind, type: any Encodable.Type) {
        self.kind = kind
        self.type = type
        ranges = Self.ranges(of: kind, size: Self.size(of: type))
    }

    private static func ranges(of kind: Kind, size: Int) -> IdentityRanges.Ranges {
        switch kind {
        case .fields(let fields):
            return IdentityRanges.merged(fields.flatMap { field in field.plan.ranges.map { (field.offset + $0.offset, $0.length) } })
        case .optional(let wrapped):
            // The value's own ranges hold the nil case too when it has spare values (a
            // string's, say); otherwise a tag follows the value.
            let valueSize = Self.size(of: wrapped.plan.type)
            return IdentityRanges.merged(wrapped.plan.ranges + (size > valueSize ? [(valueSize, size - valueSize)] : []))
        case .leaf, .elements, .other:
            return size > 0 ? [(0, size)] : []
        }
    }

    static func size(of type: any Encodable.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return size(type)
    }
}

/// Arrays whose element type has a plan: how to reach their elements from a pointer.
protocol PlannableElements {
    static var elementPlanType: any Encodable.Type { get }
    static func elementsBuffer() -> (UnsafeRawPointer) -> (UnsafeRawPointer?, Int)
    static func elementsEqual() -> (UnsafeRawPointer, UnsafeRawPointer) -> Bool
    static var elementStride: Int { get }
}

extension Array: PlannableElements where Element: Equatable & Encodable {
    static var elementPlanType: any Encodable.Type { Element.self }
    static var elementStride: Int { MemoryLayout<Element>.stride }
    static func elementsBuffer() -> (UnsafeRawPointer) -> (UnsafeRawPointer?, Int) {
        { pointer in
            // A native array's storage stays where it is while the array is alive, and both
            // states are alive for the whole diff.
            pointer.assumingMemoryBound(to: [Element].self).pointee.withUnsafeBufferPointer { (UnsafeRawPointer($0.baseAddress), $0.count) }
        }
    }
    static func elementsEqual() -> (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
        { $0.assumingMemoryBound(to: Element.self).pointee == $1.assumingMemoryBound(to: Element.self).pointee }
    }
}

/// Optionals whose wrapped type may have a plan.
protocol DiffableOptional {
    static var wrappedPlanType: any Encodable.Type { get }
    /// Whether the optional at `value` is nil.
    static func isNil(at value: UnsafeRawPointer) -> Bool
}

extension Optional: DiffableOptional where Wrapped: Encodable {
    static var wrappedPlanType: any Encodable.Type { Wrapped.self }
    static func isNil(at value: UnsafeRawPointer) -> Bool {
        // Borrowed where it is: the tag is read without copying the wrapped value.
        switch value.assumingMemoryBound(to: Self.self).pointee {
        case .none: true
        case .some: false
        }
    }
}

/// The plans made so far, one per type, shared by every diff in the process.
final class DiffPlans: @unchecked Sendable {
    static let shared = DiffPlans()

    /// How often a plan made before all its parts were judged is made again: a struct
    /// that is never encoded on its own (a standard library type, say) stays `other`.
    static let remakeLimit = 8

    private let lock = ConditionLock()
    private var plans: [ObjectIdentifier: DiffPlan] = [:]
    private var remakes: [ObjectIdentifier: Int] = [:]

    /// `T`'s plan when it is a struct written member by member, once its encoding has been
    /// judged (after its first encode); nil otherwise.
    func plan<T: Encodable>(for type: T.Type) -> DiffPlan? {
        if let known = lock.withLock({ plans[ObjectIdentifier(T.self)] }) {
            if case .fields = known.kind { return known }
            return nil
        }
        var complete = true
        var building: Set<ObjectIdentifier> = []
        let plan = Self.make(T.self, complete: &complete, building: &building)
        // A type met before its parts were judged is made again next time (a few times).
        lock.withLock {
            let id = ObjectIdentifier(T.self)
            remakes[id, default: 0] += 1
            if complete || remakes[id, default: 0] > Self.remakeLimit { plans[id] = plan }
        }
        if case .fields = plan.kind { return plan }
        return nil
    }

    private static func make(_ type: any Encodable.Type, complete: inout Bool, building: inout Set<ObjectIdentifier>) -> DiffPlan {
        func open<T: Encodable>(_: T.Type) -> DiffPlan {
            if T.self == String.self { return DiffPlan(kind: .leaf(.string), type: T.self) }
            if T.self == Int.self { return DiffPlan(kind: .leaf(.int), type: T.self) }
            if T.self == Double.self { return DiffPlan(kind: .leaf(.double), type: T.self) }
            if T.self == Bool.self { return DiffPlan(kind: .leaf(.bool), type: T.self) }
            let id = ObjectIdentifier(T.self)
            // A type inside itself (through an array): the generic differ takes the inner one.
            guard !building.contains(id) else { return DiffPlan(kind: .other, type: T.self) }
            building.insert(id)
            defer { building.remove(id) }
            if TypeKind.of(T.self) == .optional, let optional = T.self as? any DiffableOptional.Type {
                let wrapped = make(optional.wrappedPlanType, complete: &complete, building: &building)
                switch wrapped.kind {
                case .leaf, .fields, .elements:
                    return DiffPlan(kind: .optional(.init(plan: wrapped, optional: optional)), type: T.self)
                case .optional, .other: return DiffPlan(kind: .other, type: T.self)
                }
            }
            if let array = T.self as? any PlannableElements.Type {
                let element = make(array.elementPlanType, complete: &complete, building: &building)
                guard case .fields = element.kind else { return DiffPlan(kind: .other, type: T.self) }
                let ranges = EncodingPlans.shared.identityRanges(of: array.elementPlanType) ?? []
                return DiffPlan(
                    kind: .elements(
                        .init(
                            plan: element, stride: array.elementStride, ranges: ranges, buffer: array.elementsBuffer(),
                            equal: array.elementsEqual())),
                    type: T.self)
            }
            if let fields = EncodingPlans.shared.plainFields(of: T.self) {
                return DiffPlan(
                    kind: .fields(
                        fields.map {
                            DiffPlan.Field(
                                pointerName: Array(Differ.escape($0.name).utf8), offset: $0.offset,
                                plan: make($0.type, complete: &complete, building: &building))
                        }),
                    type: T.self)
            }
            // A struct not encoded yet (or only ever seen inside an empty array) may be plain later.
            if Self.isStruct(T.self), TypeKind.of(T.self) != .collection, !EncodingPlans.shared.isJudged(T.self) { complete = false }
            return DiffPlan(kind: .other, type: T.self)
        }
        return open(type)
    }

    /// Whether the runtime calls `type` a struct (the only kind that may get fields).
    private static func isStruct(_ type: any Any.Type) -> Bool {
        // The metadata kind of a struct is 0x200 (MetadataKind::Struct).
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self) == 0x200
    }
}
