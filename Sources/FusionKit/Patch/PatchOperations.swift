/// RFC 6902 operations as JSON text: "[" then each operation, "," between them.
struct PatchOperations {
    var writer: JSONWriter
    private(set) var count = 0
    /// Where the array begins in `writer`: after what `prefix` wrote.
    private let arrayStart: Int

    /// The operations alone.
    init() { self.init(reservingCapacity: 128) { _ in } }

    /// The operations written after `prefix` (`Store.patch`'s answer: its header first, so
    /// that the operations are never copied into a second writer).
    init(reservingCapacity capacity: Int, prefix: (inout JSONWriter) -> Void) {
        writer = JSONWriter(reservingCapacity: capacity)
        prefix(&writer)
        arrayStart = writer.bytes.count
        writer.writeRaw("[")
    }

    /// The length of the array written so far (the prefix not counted).
    var arrayByteCount: Int { writer.bytes.count - arrayStart }

    enum Op {
        case replace, add, remove
    }

    mutating func begin(_ op: Op, _ path: String, hasValue: Bool = true) {
        begin(op, pointer: Array(path.utf8), hasValue: hasValue)
    }

    /// Opens an operation up to its value: `{"op":OP,"path":PATH` and, when it has one,
    /// `,"value":`; the path as UTF-8 bytes (the plan walker's).
    mutating func begin(_ op: Op, pointer: [UInt8], hasValue: Bool = true) {
        openQuoted(op)
        // A pointer needs JSON escapes only for quotes, backslashes and control characters:
        // most go out as they are, between the opening's and the closing's quotes.
        if pointer.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            var escaped = JSONWriter(reservingCapacity: pointer.count + 8)
            escaped.writeString(String(decoding: pointer, as: UTF8.self))
            writer.writeJSON(Array(escaped.bytes.dropFirst().dropLast()))
        } else {
            writer.writeJSON(pointer)
        }
        if hasValue { writer.writeRaw("\",\"value\":") } else { writer.writeRaw("\"}") }
    }

    /// The opening up to the path's first quote, in one literal: the writer's cost is per
    /// piece, not per byte.
    private mutating func openQuoted(_ op: Op) {
        let first = count == 0
        count += 1
        switch (op, first) {
        case (.replace, true): writer.writeRaw("{\"op\":\"replace\",\"path\":\"")
        case (.replace, false): writer.writeRaw(",{\"op\":\"replace\",\"path\":\"")
        case (.add, true): writer.writeRaw("{\"op\":\"add\",\"path\":\"")
        case (.add, false): writer.writeRaw(",{\"op\":\"add\",\"path\":\"")
        case (.remove, true): writer.writeRaw("{\"op\":\"remove\",\"path\":\"")
        case (.remove, false): writer.writeRaw(",{\"op\":\"remove\",\"path\":\"")
        }
    }

    mutating func end() { writer.writeRaw("}") }

    mutating func finish() { writer.writeRaw("]") }
}
