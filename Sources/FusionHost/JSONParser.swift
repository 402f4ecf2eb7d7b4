/// Why some text is not JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem in the text.
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser producing `JSONValue`s (members kept in order).
///
/// Used for everything the host reads: the manifest and states from a library, values
/// a person types, state files. Nesting is limited so that hostile text cannot
/// exhaust the stack.
public struct JSONParser {
    public static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.error("empty text, expected a JSON value") }
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of text, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character \(describe(byte)), expected a value")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard current == byte else { throw error("invalid literal, expected \(word)") }
            index += 1
        }
    }

    private mutating func nested<T>(_ body: (inout JSONParser) throws(JSONParseError) -> T) throws(JSONParseError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        return try body(&self)
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try nested { (parser: inout JSONParser) throws(JSONParseError) -> JSONValue in
            parser.index += 1  // {
            var members: [(key: String, value: JSONValue)] = []
            var seen = Set<String>()
            parser.skipWhitespace()
            if parser.current == UInt8(ascii: "}") {
                parser.index += 1
                return .object(members)
            }
            while true {
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: "\"") else { throw parser.error("expected a member name in double quotes") }
                let keyOffset = parser.index
                let key = try parser.string()
                guard seen.insert(key).inserted else {
                    throw JSONParseError(offset: keyOffset, reason: "duplicate member \"\(key)\"")
                }
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: ":") else { throw parser.error("expected ':' after member name") }
                parser.index += 1
                parser.skipWhitespace()
                members.append((key, try parser.value()))
                parser.skipWhitespace()
                switch parser.current {
                case UInt8(ascii: ","): parser.index += 1
                case UInt8(ascii: "}"): parser.index += 1; return .object(members)
                default: throw parser.error("expected ',' or '}' in object")
                }
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try nested { (parser: inout JSONParser) throws(JSONParseError) -> JSONValue in
            parser.index += 1  // [
            var items: [JSONValue] = []
            parser.skipWhitespace()
            if parser.current == UInt8(ascii: "]") {
                parser.index += 1
                return .array(items)
            }
            while true {
                parser.skipWhitespace()
                items.append(try parser.value())
                parser.skipWhitespace()
                switch parser.current {
                case UInt8(ascii: ","): parser.index += 1
                case UInt8(ascii: "]"): parser.index += 1; return .array(items)
                default: throw parser.error("expected ',' or ']' in array")
                }
            }
        }
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw error("leading zeros are not allowed") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let next = current, isDigit(next) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let next = current, isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    private mutating func string() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ parser: JSONParser, upTo end: Int, into scalars: inout String.UnicodeScalarView) throws(JSONParseError) {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw JSONParseError(offset: runStart, reason: "invalid UTF-8 in string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun(self, upTo: index, into: &scalars)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun(self, upTo: index, into: &scalars)
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0x00..<0x20:
                throw error("control character in string; write it as an escape such as \\n")
            default:
                index += 1
            }
        }
    }

    private mutating func escape() throws(JSONParseError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate \\u\(String(high, radix: 16))")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate \\u\(String(high, radix: 16))") }
                let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate \\u\(String(high, radix: 16))") }
            return scalar
        default:
            index -= 1
            throw error("invalid escape \\\(Character(Unicode.Scalar(byte)))")
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected four hex digits after \\u")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
