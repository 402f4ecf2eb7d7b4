// DoubleText and JSONEscaping, inlined per field.
@_spi(FusionKit) import FusionJSON

/// Encodes `Encodable` values straight to UTF-8 bytes, without building a tree.
///
/// Synthesized `encode(to:)` code writes fields in order and finishes each nested
/// container before the next field, so the output can be written as it comes: each
/// container is a frame on a stack, and writing into a frame closes the frames
/// opened after it. Code that writes out of that order (into a container after a
/// sibling was written, through `superEncoder`, twice into one value) is detected,
/// and the value is encoded again with `JSONValueEncoder`, which handles any order
/// and reports errors with their path. So the stream is an optimisation, never a
/// difference in output.
public struct JSONStreamEncoder {
    public init() {}

    /// Compact JSON for `value`, byte for byte what `JSONValueEncoder().encodeBytes` gives.
    /// Plain structs, arrays and optionals of them follow the type's `EncodingPlan`; the
    /// first value of a type goes through `Encodable` and is recorded to build it.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try encode(value, plan: nil, scratch: nil).bytes
    }

    /// `value` written by `plan` alone, when the plan runs no other code and the value
    /// has nothing it cannot write (a non-finite number): what a store may do while
    /// holding its lock. Nil otherwise, and the caller encodes as usual.
    @usableFromInline
    func encodeByPlanAlone<T: Encodable>(_ value: T, plan: EncodingPlan, scratch: AnyObject?) -> (bytes: [UInt8], scratch: AnyObject?)? {
        guard plan.runsOnlyItself else { return nil }
        let stream = scratch.map { unsafeDowncast($0, to: StreamWriter.self).startOver() } ?? StreamWriter()
        do {
            try withUnsafePointer(to: value) { try plan.write(UnsafeRawPointer($0), to: stream) }
            try stream.finish()
        } catch {
            return nil
        }
        return (stream.bytes, stream.reusable ? stream : nil)
    }

    /// The value at `value` (of `plan`'s type) written by `plan` alone, as
    /// `encodeByPlanAlone` writes it, then copied into `buffer` with a NUL after it when
    /// both fit: no array is made. Returns the JSON's length (whether or not it fitted),
    /// or nil when the plan cannot write this value alone. `scratch` is the writer kept
    /// between calls: taken, and given back when worth keeping.
    /// (`plan` and `scratch` are the store's own, passed in place: read where they are,
    /// without a retain and a release each.)
    @usableFromInline
    func writeByPlanAlone(
        _ value: UnsafeRawPointer, plan: inout EncodingPlan?, scratch: inout AnyObject?, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard plan?.runsOnlyItself == true else { return nil }
        if scratch == nil { scratch = StreamWriter() }
        // Both stay referenced by the store, under its lock, for the whole call.
        let written = Unmanaged.passUnretained(plan.unsafelyUnwrapped)._withUnsafeGuaranteedRef { plan in
            Unmanaged.passUnretained(unsafeDowncast(scratch.unsafelyUnwrapped, to: StreamWriter.self))._withUnsafeGuaranteedRef {
                stream -> (length: Int, keep: Bool)? in
                stream.reset()
                do {
                    try plan.write(value, to: stream)
                    try stream.finish()
                } catch {
                    return nil
                }
                return (stream.copy(into: buffer), stream.reusable)
            }
        }
        guard let written else { return nil }
        if !written.keep { scratch = nil }
        return written.length
    }

    /// `encode(_:)` with the plan a caller kept from an earlier call (nil: look it up),
    /// returning the plan to keep: how a `Store` skips the shared table's lock.
    ///
    /// `scratch`: what an earlier call returned as its scratch, to write with again
    /// (nil: a new writer); the scratch returned is worth keeping for the next call, or nil.
    @usableFromInline
    func encode<T: Encodable>(_ value: T, plan known: EncodingPlan?, scratch: AnyObject? = nil) throws -> (
        bytes: [UInt8], plan: EncodingPlan?, scratch: AnyObject?
    ) {
        let stream = scratch.map { unsafeDowncast($0, to: StreamWriter.self).startOver() } ?? StreamWriter()
        var plan = known ?? EncodingPlans.shared.plan(for: T.self)
        do {
            if let plan {
                try withUnsafePointer(to: value) { try plan.write(UnsafeRawPointer($0), to: stream) }
            } else {
                stream.recording = EncodeRecording()
                try stream.writeValue(value)
            }
            try stream.finish()
        } catch {
            // Out of order for the stream, or an error from encode(to:) code: the tree
            // encoder writes it, or throws the error with its coding path.
            return (try JSONValueEncoder().encodeBytes(value), plan, nil)
        }
        // Set when the encode met types without a plan (the first value, or a struct
        // first seen only inside an empty array): what it recorded completes the plan.
        if let recording = stream.recording { plan = EncodingPlans.shared.learn(T.self, from: recording) }
        return (stream.bytes, plan, stream.reusable ? stream : nil)
    }
}
