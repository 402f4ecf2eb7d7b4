/// A strict RFC 8259 parser over UTF-8 bytes: FusionKit's for the inputs, states and
/// options a library is given, FusionHost's for the manifests and states it reads and
/// for what people type and save. One parser, so one to fuzz, measure and fix.
///
/// Written by hand rather than on Foundation's `JSONSerialization` so that the core
/// links no Foundation, object members keep their order, errors carry a line and column,
/// and nesting is bounded (a deeply nested document is an error, never a stack overflow
/// in the host). Numbers become `.integer` or `.double` as `JSONValue` describes.
public struct JSONParser {
    /// Documents nested deeper than this are always rejected: the most the recursive
    /// descent (and the recursion over the value afterwards) is known to fit in the
    /// stack of a host's thread. A `JSONDepthLimit` can set a lower bound. (A constant
    /// that inlines: `JSONDepthLimit.init` clamps to it in the library's code.)
    @inlinable public static var maximumDepth: Int { 512 }

    /// Parses one JSON document: UTF-8 bytes holding one value, whitespace around it.
    public static func parse(_ bytes: UnsafeRawBufferPointer, depthLimit: JSONDepthLimit = .maximum) throws(JSONParseError) -> JSONValue {
        let buffer = bytes.bindMemory(to: UInt8.self)
        if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
            throw JSONParser(buffer, depthLimit: depthLimit).error(.invalidUTF8, at: bad, "invalid UTF-8")
        }
        var parser = JSONParser(buffer, depthLimit: depthLimit)
        parser.skipWhitespace()
        guard parser.index < buffer.count else {
            throw parser.error(.empty, at: 0, buffer.isEmpty ? "the JSON text is empty" : "the JSON text holds only whitespace")
        }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < buffer.count {
            throw parser.error(
                .syntax, at: parser.index, "unexpected \(parser.describeByte(at: parser.index)) after the end of the JSON value")
        }
        return value
    }

    public static func parse(_ bytes: [UInt8], depthLimit: JSONDepthLimit = .maximum) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBytes { raw in Result { () throws(JSONParseError) in try parse(raw, depthLimit: depthLimit) } }.get()
    }

    public static func parse(_ text: String, depthLimit: JSONDepthLimit = .maximum) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), depthLimit: depthLimit)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// The caller's, for the whole document.
    private let depthLimit: JSONDepthLimit

    private init(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: JSONDepthLimit) {
        self.bytes = bytes
        self.depthLimit = depthLimit
    }

    // MARK: values

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error(.syntax, at: index, "unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(.syntax, at: index, "unexpected \(describeByte(at: index)), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > depthLimit.levels { throw depthError() }
        // Objects and arrays are read alike (open, members, separators, close), in two functions
        // kept apart for speed: the parser is on every input's path.
        index += 1  // {
        var members: [JSONMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            let (key, keyOffset) = try parseKey()
            // A scan of the members so far: the fastest for the few most objects have.
            for member in members where member.key == key { throw duplicateKeyError(key, at: keyOffset) }
            members.append(JSONMember(key, try parseMemberValue(after: key, depth: depth)))
            if try endOfObject() { return .object(members) }
            if members.count == Self.keyScanLimit {
                try parseRestOfLargeObject(into: &members, depth: depth)
                return .object(members)
            }
        }
    }

    /// Members up to which duplicate keys are looked for by a scan.
    private static let keyScanLimit = 16

    /// The members after the first `keyScanLimit`, duplicates looked up in a set: a large
    /// object costs linear time, not quadratic (and a small one never makes the set).
    @inline(never)
    private mutating func parseRestOfLargeObject(into members: inout [JSONMember], depth: Int) throws(JSONParseError) {
        // A closure, not a key path: Embedded Swift has no key paths.
        var keys = Set(members.lazy.map { $0.key })
        while true {
            let (key, keyOffset) = try parseKey()
            guard keys.insert(key).inserted else { throw duplicateKeyError(key, at: keyOffset) }
            members.append(JSONMember(key, try parseMemberValue(after: key, depth: depth)))
            if try endOfObject() { return }
        }
    }

    /// A member's key, after any whitespace, and the offset of its opening quote.
    @inline(__always)
    private mutating func parseKey() throws(JSONParseError) -> (key: String, offset: Int) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
            throw error(.syntax, at: index, "expected a string key in double quotes, found \(describeByte(at: index))")
        }
        let offset = index
        return (try parseString(), offset)
    }

    /// The ':' after a member's key, and the member's value.
    @inline(__always)
    private mutating func parseMemberValue(after key: String, depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else {
            throw error(.syntax, at: index, "expected ':' after the key \"\(key)\", found \(describeByte(at: index))")
        }
        index += 1
        skipWhitespace()
        return try parseValue(depth: depth)
    }

    /// After a member: true at the closing '}', false at a ',' (both read), else an error.
    @inline(__always)
    private mutating func endOfObject() throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index += 1; return false
        case UInt8(ascii: "}"): index += 1; return true
        default: throw error(.syntax, at: index, "expected ',' or '}' after an object member, found \(describeByte(at: index))")
        }
    }

    private func duplicateKeyError(_ key: String, at offset: Int) -> JSONParseError {
        error(.syntax, at: offset, "duplicate key \"\(key)\" in object")
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > depthLimit.levels { throw depthError() }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw error(.syntax, at: index, "expected ',' or ']' after an array element, found \(describeByte(at: index))")
            }
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1  // opening quote
        let contentStart = index
        // Fast path: no escapes, the common case.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error(.syntax, at: index, "control character \(hexByte(byte)) must be escaped in a string") }
            index += 1
        }
        guard index < bytes.count else { throw error(.syntax, at: start, "unterminated string") }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scratch)
            case 0..<0x20:
                throw error(.syntax, at: index, "control character \(hexByte(byte)) must be escaped in a string")
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw error(.syntax, at: start, "unterminated string")
    }

    private mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1  // backslash
        guard index < bytes.count else { throw error(.syntax, at: escapeStart, "unterminated escape sequence") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: escapeStart)
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error(.syntax, at: escapeStart, "unpaired UTF-16 surrogate in \\u escape")
                }
                index += 2
                let low = try parseHex4(escapeStart: escapeStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(.syntax, at: escapeStart, "unpaired UTF-16 surrogate in \\u escape")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error(.syntax, at: escapeStart, "unpaired UTF-16 surrogate in \\u escape")
            }
            // Every value reaching here is a valid scalar: surrogates were handled above.
            if let valid = Unicode.Scalar(scalar) { scratch.append(contentsOf: String(valid).utf8) }
        default:
            throw error(.syntax, at: escapeStart, "invalid escape sequence '\\\(String(UnicodeScalar(c)))'")
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error(.syntax, at: escapeStart, "\\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error(.syntax, at: escapeStart, "\\u escape needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error(.syntax, at: index, "expected a digit in number, found \(describeByte(at: index))")
        }
        let integerStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error(.syntax, at: start, "numbers must not have leading zeros")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let integerEnd = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.syntax, at: index, "expected a digit after the decimal point, found \(describeByte(at: index))")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.syntax, at: index, "expected a digit in the exponent, found \(describeByte(at: index))")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger {
            var value = 0
            var fits = true
            for i in integerStart..<integerEnd {
                let digit = Int(bytes[i] - UInt8(ascii: "0"))
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
                if o1 || o2 { fits = false; break }
                value = s
            }
            if fits { return .integer(value) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error(.syntax, at: start, "number \(text) is out of range")
        }
        return .double(value)
    }

    // MARK: helpers

    /// A syntax error, as depth always was: a library reports it as FK_ERR_MALFORMED_JSON
    /// (hosts branch on it).
    private func depthError() -> JSONParseError {
        error(.syntax, at: index, depthLimit.exceededReason)
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let matches =
            index + count <= bytes.count
            && word.withUTF8Buffer { literal in
                (0..<count).allSatisfy { bytes[index + $0] == literal[$0] }
            }
        guard matches else { throw error(.syntax, at: index, "unexpected \(describeByte(at: index)), expected a value") }
        index += count
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
    }

    private func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(String(UnicodeScalar(byte)))'" }
        if byte >= 0x80 {
            // Show the whole character, not its first byte.
            var end = offset + 1
            while end < bytes.count, end - offset < 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'\(String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self))'"
        }
        return "byte \(hexByte(byte))"
    }

    private func error(_ kind: JSONParseError.Kind, at offset: Int, _ reason: String) -> JSONParseError {
        var line = 1
        var lineStart = 0
        var i = 0
        let limit = min(offset, bytes.count)
        while i < limit {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return JSONParseError(kind: kind, offset: offset, line: line, column: offset - lineStart + 1, reason: reason)
    }
}
