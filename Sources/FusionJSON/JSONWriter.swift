/// Serializes JSON into UTF-8 bytes, members in the order given: compact (what goes over
/// the ABI and the wire) or pretty (one member per line, for people and saved files).
///
/// Whole doubles below 1e15 are written as integers (`1.0` as `1`), as JavaScript and
/// Python print them; other doubles in their shortest form that reads back the same.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Compact JSON for `value`.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let b): writeRaw(b ? "true" : "false")
        case .integer(let i): writeInteger(i)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `value` with each member and element on a line of its own, indented by `indent`
    /// spaces per level, `"key": value`; empty arrays and objects stay `[]` and `{}`.
    public mutating func writePretty(_ value: JSONValue, indent: Int = 2) {
        writePretty(value, indent: max(indent, 0), level: 0)
    }

    private mutating func writePretty(_ value: JSONValue, indent: Int, level: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeNewline(indent: indent, level: level + 1)
                writePretty(element, indent: indent, level: level + 1)
            }
            writeNewline(indent: indent, level: level)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeNewline(indent: indent, level: level + 1)
                writeString(member.key)
                writeRaw(": ")
                writePretty(member.value, indent: indent, level: level + 1)
            }
            writeNewline(indent: indent, level: level)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(value)
        }
    }

    private mutating func writeNewline(indent: Int, level: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    public mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends JSON text written elsewhere (by an encoder), as it is.
    public mutating func writeJSON(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
    }

    /// Appends the bytes of another writer.
    public mutating func writeJSON(_ other: JSONWriter) {
        bytes.append(contentsOf: other.bytes)
    }

    public mutating func writeBool(_ value: Bool) {
        writeRaw(value ? "true" : "false")
    }

    /// `Int` without generic arithmetic: the common case, kept fast.
    public mutating func writeInteger(_ value: Int) {
        JSONWriter.appendInteger(value, to: &bytes)
    }

    @inline(__always)
    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var magnitude = value.magnitude
        // 20 digits and a sign fit in three words; fill from the end.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            var position = 24
            while magnitude > 0 {
                let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
                position -= 1
                raw[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: r)
                magnitude = q
            }
            if value < 0 {
                position -= 1
                raw[position] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[position..<24]))
        }
    }

    public mutating func writeInteger<T: BinaryInteger>(_ value: T) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Digits are produced backwards into a small stack buffer, magnitude first so
        // that Int.min does not overflow on negation.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
            var count = 0
            while magnitude > 0 {
                let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
                digits[39 - count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: r)
                count += 1
                magnitude = q
            }
            if value < 0 {
                digits[39 - count] = UInt8(ascii: "-")
                count += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(40 - count)...]))
        }
    }

    /// Writes a finite double; callers reject NaN and infinities before this.
    public mutating func writeDouble(_ value: Double) {
        // Whole numbers print without a trailing ".0", as JavaScript and Python do.
        JSONWriter.appendDouble(value, to: &bytes)
    }

    public mutating func writeString(_ string: String) {
        JSONWriter.appendString(string, to: &bytes)
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Most strings need no escaping: copy them whole.
            var clean = true
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                clean = false
                break
            }
            if clean {
                bytes.append(contentsOf: utf8)
                return
            }
            var runStart = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                runStart = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]
                    ])
                }
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Finite doubles: whole numbers as integers, others in Swift's shortest form.
    static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            if let whole = Int(exactly: value) {
                appendInteger(whole, to: &bytes)
            } else {
                // Only where Int is 32 bits (WebAssembly): the same digits, through Int64
                // (Int(value) would trap past 2^31).
                var wide = JSONWriter(reservingCapacity: 24)
                wide.writeInteger(Int64(value))
                bytes.append(contentsOf: wide.bytes)
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DoubleText.capacity) { buffer in
            let length = DoubleText.write(value, into: buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<length]))
        }
    }
}
