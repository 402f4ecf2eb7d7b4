extension JSONValue {
    /// Compact JSON text, members in their order: what is sent to a library and saved.
    public var jsonText: String {
        var out = ""
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// JSON text with one member per line, indented by `indent` spaces per level.
    public func prettyText(indent: Int = 2) -> String {
        var out = ""
        write(into: &out, indent: indent, level: 0)
        return out
    }

    private func write(into out: inout String, indent: Int?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): out += JSONValue.quoted(text)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (position, item) in items.enumerated() {
                if position > 0 { out += "," }
                Self.newline(into: &out, indent: indent, level: level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            Self.newline(into: &out, indent: indent, level: level)
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { out += "," }
                Self.newline(into: &out, indent: indent, level: level + 1)
                out += JSONValue.quoted(member.key)
                out += indent == nil ? ":" : ": "
                member.value.write(into: &out, indent: indent, level: level + 1)
            }
            Self.newline(into: &out, indent: indent, level: level)
            out += "}"
        }
    }

    private static func newline(into out: inout String, indent: Int?, level: Int) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: " ", count: indent * level)
    }

    /// A string as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }
}
