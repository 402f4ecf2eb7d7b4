// DoubleText and JSONEscaping, inlined per field.
@_spi(FusionKit) import FusionJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The writer is used by one thread, inside one encode call; its properties skip the
// run-time exclusivity checks that otherwise cost more than the writing itself. A
// `Store` keeps one between encodes (see `encode(_:plan:scratch:)`), saving two
// allocations each time.
final class StreamWriter: Encoder {
    // The stream keeps no coding path; code that reads it gets the tree encoder, which does.
    var codingPath: [any CodingKey] {
        broken = true
        return []
    }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    struct Frame {
        enum Kind {
            case object
            case array
            /// An enum case's payload that holds one unlabeled value ("_0"), written bare.
            case bare
        }
        var kind: Kind
        var id: Int
        /// For objects: whether "{" has been written (deferred until the first key, to
        /// tell a bare "_0" payload from an object).
        var opened: Bool
        var count: Int
        /// For objects: the keys written so far. A key written twice is something the
        /// stream cannot take back (the tree encoder keeps the last value).
        var keys: [String] = []
        var keySet: Set<String>?

        /// Adds `key`; false when it was there already.
        mutating func insert(_ key: String) -> Bool {
            if keySet != nil { return keySet!.insert(key).inserted }
            if keys.contains(key) { return false }
            keys.append(key)
            if keys.count > 16 {
                keySet = Set(keys)  // a dictionary with many keys: no quadratic search
                keys = []
            }
            return true
        }
    }

    /// The output, in a buffer of our own: appending through `Array` costs a
    /// uniqueness check and a generic call per piece, more than the copying itself.
    /// malloc'd, so that it grows with realloc: a large state's buffer is extended (by
    /// mremap, for large blocks) instead of copied at every doubling.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var frames: [Frame] = []
    @exclusivity(unchecked) private var nextFrameID = 0
    /// Set when a value slot is open: the next container request fills it.
    @exclusivity(unchecked) private var slotOpen = false
    /// Set by non-throwing Encoder calls that cannot be honoured; checked at the end.
    @exclusivity(unchecked) var broken = false
    /// While set, the first value of each type writes down what its encode(to:) does
    /// (see `EncodingPlanBuilder`); `currentRecord` is the value being encoded.
    @exclusivity(unchecked) var recording: EncodeRecording?
    @exclusivity(unchecked) private var currentRecord: EncodeRecord?
    /// The object frame opened for the value being encoded: a second request for its
    /// keyed container (allowed by Encoder) writes into that one, and only that one.
    @exclusivity(unchecked) private var currentValueFrame: Int?

    init() {
        capacity = 256
        storage = Self.allocate(capacity)
    }

    /// Worth keeping for the next encode: not holding on to a large buffer.
    var reusable: Bool { capacity <= 64 * 1024 }

    /// The writer, emptied for another encode.
    func startOver() -> StreamWriter {
        reset()
        return self
    }

    func reset() {
        count = 0
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        nextFrameID = 0
        slotOpen = false
        broken = false
        // Tested first: storing nil over nil still calls into the runtime to release.
        if recording != nil { recording = nil }
        if currentRecord != nil { currentRecord = nil }
    }

    deinit {
        free(storage)
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let memory = malloc(capacity) else { fatalError("out of memory allocating \(capacity) bytes for JSON") }
        return memory.assumingMemoryBound(to: UInt8.self)
    }

    /// What has been written.
    var bytes: [UInt8] {
        [UInt8](UnsafeBufferPointer(start: storage, count: count))
    }

    /// Copies what has been written, and a NUL, into `buffer` when both fit; returns
    /// how many bytes were written to the stream either way.
    func copy(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        copyTerminated(UnsafeRawBufferPointer(start: storage, count: count), into: buffer)
    }

    @inline(__always) private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        guard let bigger = realloc(storage, newCapacity) else { fatalError("out of memory growing JSON to \(newCapacity) bytes") }
        storage = bigger.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }

    @inline(__always) func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    /// Appends a plan's literal text (keys and punctuation, short): eight bytes at a
    /// time, which beats calling memcpy. May read up to 7 bytes past the end of
    /// `bytes`, which `EncodingPlan` pads for this; those land past `count`, unused.
    @inline(__always) func appendPadded(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        reserve(length + 8)
        let source = UnsafeRawPointer(bytes)
        let target = UnsafeMutableRawPointer(storage + count)
        var index = 0
        while index < length {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: index, as: UInt64.self), toByteOffset: index, as: UInt64.self)
            index += 8
        }
        count += length
    }

    /// Copies `length` bytes to the end of the output, which has room for them.
    @inline(__always) private func copy(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        guard length > 24 else {
            // Most strings in a state are short: words and bytes beat calling memcpy.
            let source = UnsafeRawPointer(bytes)
            let target = UnsafeMutableRawPointer(storage + count)
            var index = 0
            while index + 8 <= length {
                target.storeBytes(of: source.loadUnaligned(fromByteOffset: index, as: UInt64.self), toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < length {
                target.storeBytes(of: bytes[index], toByteOffset: index, as: UInt8.self)
                index += 1
            }
            count += length
            return
        }
        (storage + count).update(from: bytes, count: length)
        count += length
    }

    @inline(__always) private func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        reserve(source.count)
        (storage + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: source.count)
        count += source.count
    }

    // MARK: values

    func writeValue<T: Encodable>(_ value: T) throws {
        // Type identity, not `as?` casts: a cast looks up conformances at run time.
        if T.self == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            writeInteger(unsafeBitCast(value, to: Int.self))
        } else if T.self == Bool.self {
            writeBool(unsafeBitCast(value, to: Bool.self))
        } else if T.self == Double.self {
            try writeDouble(unsafeBitCast(value, to: Double.self))
        } else {
            let depth = frames.count
            let start = count
            slotOpen = true
            let outerRecord = currentRecord
            let outerFrame = currentValueFrame
            let record = recording?.start(value) ?? nil
            currentRecord = record
            currentValueFrame = nil
            defer {
                currentRecord = outerRecord
                currentValueFrame = outerFrame
            }
            try value.encode(to: self)
            if slotOpen {
                // Encoded nothing: synthesized code for an empty type still asks for a
                // container, so this is custom code; let the tree encoder decide.
                throw outOfOrder()
            }
            try close(downTo: depth)
            record?.bytes = [UInt8](UnsafeBufferPointer(start: storage + start, count: count - start))
        }
    }

    /// The error that sends the value to the tree encoder. Also marks the stream broken,
    /// so that `finish` throws it again even if `encode(to:)` code swallowed it (`try?`).
    func outOfOrder() -> OutOfOrder {
        broken = true
        return OutOfOrder()
    }

    func finish() throws {
        try close(downTo: 0)
        if broken { throw OutOfOrder() }
    }

    func writeString(_ string: String) {
        var text = string
        text.withUTF8 { writeUTF8($0) }
    }

    /// The string stored at `pointer`, read in place (no copy, no retain) when it is contiguous.
    @inline(__always)
    func writeString(at pointer: UnsafePointer<String>) {
        if pointer.pointee.utf8.withContiguousStorageIfAvailable({ writeUTF8($0) }) == nil {
            writeString(pointer.pointee)
        }
    }

    private func writeUTF8(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress, !utf8.isEmpty else {
            append(UInt8(ascii: "\""))
            append(UInt8(ascii: "\""))
            return
        }
        let length = utf8.count
        guard !JSONEscaping.needsEscaping(base, length) else {
            // Rare: escape with the general writer.
            var writer = JSONWriter(reservingCapacity: length + 8)
            writer.writeString(String(decoding: utf8, as: UTF8.self))
            writer.bytes.withUnsafeBytes { append($0) }
            return
        }
        reserve(length + 2)
        storage[count] = 0x22
        count += 1
        copy(base, length)
        storage[count] = 0x22
        count += 1
    }

    func writeInteger(_ value: Int) {
        reserve(21)
        if value >= 0 && value < 10 {
            storage[count] = 0x30 &+ UInt8(truncatingIfNeeded: value)
            count += 1
            return
        }
        var magnitude = value.magnitude
        if value < 0 {
            storage[count] = UInt8(ascii: "-")
            count += 1
        }
        // The digits are counted at once (a few comparisons) and written two at a
        // time from the end: a division by 100 per pair instead of two loops dividing
        // by 10 per digit, which cost a Counter round trip several nanoseconds once
        // the value has a few digits.
        let end = count + Self.decimalDigits(magnitude)
        var position = end
        let pairs = Self.digitPairs.utf8Start
        while magnitude >= 100 {
            let (rest, pair) = magnitude.quotientAndRemainder(dividingBy: 100)
            position -= 2
            storage[position] = pairs[Int(pair) &* 2]
            storage[position + 1] = pairs[Int(pair) &* 2 + 1]
            magnitude = rest
        }
        if magnitude >= 10 {
            storage[position - 2] = pairs[Int(magnitude) &* 2]
            storage[position - 1] = pairs[Int(magnitude) &* 2 + 1]
        } else {
            storage[position - 1] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude)
        }
        count = end
    }

    /// "00", "01", … "99", one after another: a number's digits two at a time.
    private static var digitPairs: StaticString {
        """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """
    }

    /// How many decimal digits `value` has (at least one), by halving the range: a few
    /// divisions by constants, which compile to multiplications.
    @inline(__always) static func decimalDigits(_ value: UInt) -> Int {
        var digits = 1
        var rest = value
        if rest >= 10_000_000_000_000_000 {
            digits += 16
            rest /= 10_000_000_000_000_000
        }
        if rest >= 100_000_000 {
            digits += 8
            rest /= 100_000_000
        }
        if rest >= 10_000 {
            digits += 4
            rest /= 10_000
        }
        if rest >= 100 {
            digits += 2
            rest /= 100
        }
        return rest >= 10 ? digits + 1 : digits
    }

    func writeInteger<I: BinaryInteger>(_ i: I) {
        if let small = Int(exactly: i) {
            writeInteger(small)
        } else {
            // Beyond Int (UInt.max, say): the tree encoder decides how that is written.
            broken = true
        }
    }

    // The literals are stored as whole words (their ASCII read as a little-endian
    // number): a call to memcpy for four or five bytes costs more than the rest.
    @inline(__always) func writeBool(_ b: Bool) {
        reserve(8)
        let target = UnsafeMutableRawPointer(storage + count)
        if b {
            target.storeBytes(of: UInt32(littleEndian: 0x6575_7274), as: UInt32.self)  // "true"
            count += 4
        } else {
            target.storeBytes(of: UInt32(littleEndian: 0x736C_6166), as: UInt32.self)  // "fals"
            target.storeBytes(of: UInt8(ascii: "e"), toByteOffset: 4, as: UInt8.self)
            count += 5
        }
    }

    func writeDouble(_ d: Double) throws {
        guard d.isFinite else { throw outOfOrder() }  // the tree encoder words the error
        if d == d.rounded(.towardZero), abs(d) < 1e15 {
            writeInteger(Int(d))
            return
        }
        reserve(DoubleText.capacity)
        count += DoubleText.write(d, into: storage + count)
    }

    @inline(__always) func writeNull() {
        reserve(4)
        UnsafeMutableRawPointer(storage + count).storeBytes(of: UInt32(littleEndian: 0x6C6C_756E), as: UInt32.self)  // "null"
        count += 4
    }

    // MARK: frames

    private func push(_ kind: Frame.Kind) -> Int {
        nextFrameID += 1
        frames.append(Frame(kind: kind, id: nextFrameID, opened: kind != .object, count: 0))
        if kind == .array { append(UInt8(ascii: "[")) }
        return nextFrameID
    }

    /// Closes frames until `depth` remain.
    func close(downTo depth: Int) throws {
        while frames.count > depth {
            let frame = frames.removeLast()
            switch frame.kind {
            case .object:
                if !frame.opened { append(UInt8(ascii: "{")) }
                append(UInt8(ascii: "}"))
            case .array: append(UInt8(ascii: "]"))
            case .bare: break
            }
        }
    }

    /// Makes the frame `id` the innermost, closing deeper ones; throws if it was closed.
    @inline(__always) func activate(_ id: Int) throws -> Int {
        if let last = frames.last, last.id == id { return frames.count - 1 }
        guard let index = frames.lastIndex(where: { $0.id == id }) else { throw outOfOrder() }
        try close(downTo: index + 1)
        return index
    }

    /// Writes `"key":` into object frame `id`, opening it or handling a bare payload.
    func beginMember(_ id: Int, _ key: String) throws {
        let index = try activate(id)
        switch frames[index].kind {
        case .object:
            if !frames[index].opened {
                if key == "_0" {
                    // One unlabeled value: written as the value itself (see JSONValueEncoder).
                    frames[index].kind = .bare
                    frames[index].count = 1
                    return
                }
                append(UInt8(ascii: "{"))
                frames[index].opened = true
            }
            guard frames[index].insert(key) else { throw outOfOrder() }
            if frames[index].count > 0 { append(UInt8(ascii: ",")) }
            frames[index].count += 1
            writeString(key)
            append(UInt8(ascii: ":"))
        case .bare:
            throw outOfOrder()  // a second value next to "_0": not a bare payload after all
        case .array:
            throw outOfOrder()
        }
    }

    func beginElement(_ id: Int) throws {
        let index = try activate(id)
        if frames[index].count > 0 { append(UInt8(ascii: ",")) }
        frames[index].count += 1
    }

    /// Claims the open value slot for a container; marks the stream broken if none is open.
    private func claimSlot() -> Bool {
        if slotOpen {
            slotOpen = false
            return true
        }
        broken = true
        return false
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        currentRecord?.keyedContainers += 1
        if slotOpen {
            slotOpen = false
            let frame = push(.object)
            currentValueFrame = frame
            return KeyedEncodingContainer(StreamKeyed<Key>(writer: self, frame: frame, record: currentRecord))
        }
        // A second request for the same value's container reuses it (its writes close
        // whatever was opened inside it since).
        if let frame = currentValueFrame, frames.contains(where: { $0.id == frame && $0.kind == .object }) {
            return KeyedEncodingContainer(StreamKeyed<Key>(writer: self, frame: frame, record: currentRecord))
        }
        broken = true
        return KeyedEncodingContainer(StreamKeyed<Key>(writer: self, frame: push(.object), record: nil))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        currentRecord?.unusual = true
        _ = claimSlot()
        return StreamUnkeyed(writer: self, frame: push(.array))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        currentRecord?.unusual = true
        _ = claimSlot()
        return StreamSingle(writer: self)
    }

    /// Opens a value slot for a nested value and encodes it.
    func encodeNested<T: Encodable>(_ value: T) throws {
        try writeValue(value)
    }

    func openNestedObject() -> Int { push(.object) }
    func openNestedArray() -> Int { push(.array) }
}
