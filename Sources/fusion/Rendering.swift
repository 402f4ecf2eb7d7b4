import FusionHost

/// JSON for people: coloured by kind, on one line when it fits, indented when not.
enum Rendering {
    /// A state: one line when it fits `width` columns (or always, with no width),
    /// one member per line otherwise. Top-level keys in `changed` stand out.
    static func state(_ value: JSONValue, style: Style, width: Int?, changed: Set<String> = []) -> String {
        guard let width else { return json(value, style: style, indent: nil, changed: changed) }
        var out = ""
        fit(value, into: &out, style: style, width: width, level: 0, changed: changed)
        return out
    }

    /// Writes a value on one line if it fits the room left, else one member per line,
    /// each member again on one line if it fits: wide states stay short on screen.
    private static func fit(_ value: JSONValue, into out: inout String, style: Style, width: Int, level: Int, changed: Set<String>) {
        let indent = 2
        let room = width - indent * level
        if DisplayWidth.of(value.jsonText) <= room {
            out += json(value, style: style, indent: nil, changed: level == 0 ? changed : [])
            return
        }
        switch value {
        case .array(let items) where !items.isEmpty:
            out += "["
            for (position, item) in items.enumerated() {
                out += (position > 0 ? "," : "") + "\n" + String(repeating: " ", count: indent * (level + 1))
                fit(item, into: &out, style: style, width: width - 1, level: level + 1, changed: [])
            }
            out += "\n" + String(repeating: " ", count: indent * level) + "]"
        case .object(let members) where !members.isEmpty:
            out += "{"
            for (position, member) in members.enumerated() {
                out += (position > 0 ? "," : "") + "\n" + String(repeating: " ", count: indent * (level + 1))
                let quotedKey = JSONValue.quoted(member.key)
                out += level == 0 && changed.contains(member.key) ? style.changedKey(quotedKey) : style.key(quotedKey)
                out += ": "
                // The key takes part of the line the value starts on.
                fit(member.value, into: &out, style: style, width: width - DisplayWidth.of(quotedKey) - 3, level: level + 1, changed: [])
            }
            out += "\n" + String(repeating: " ", count: indent * level) + "}"
        default:
            out += json(value, style: style, indent: nil)  // a long string: nothing to break
        }
    }

    static func json(_ value: JSONValue, style: Style, indent: Int?, changed: Set<String> = []) -> String {
        var out = ""
        write(value, into: &out, style: style, indent: indent, level: 0, changed: changed)
        return out
    }

    private static func write(
        _ value: JSONValue, into out: inout String, style: Style, indent: Int?, level: Int, changed: Set<String>
    ) {
        switch value {
        case .null: out += style.literal("null")
        case .bool(let flag): out += style.literal(flag ? "true" : "false")
        case .integer, .double: out += style.number(value.jsonText)
        case .string(let text): out += style.string(JSONValue.quoted(text))
        // Arrays and objects are drawn alike (open, items, close, folded when short): kept as two
        // cases since their items differ (values; keys and values).
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (position, item) in items.enumerated() {
                if position > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(item, into: &out, style: style, indent: indent, level: level + 1, changed: [])
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { out += "," }
                newline(&out, indent, level + 1)
                let quotedKey = JSONValue.quoted(member.key)
                out += level == 0 && changed.contains(member.key) ? style.changedKey(quotedKey) : style.key(quotedKey)
                out += indent == nil ? ":" : ": "
                write(member.value, into: &out, style: style, indent: indent, level: level + 1, changed: [])
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: " ", count: indent * level)
    }

    /// A value inside a message: compact JSON, shortened when long.
    static func short(_ value: JSONValue?, style: Style, limit: Int = 60) -> String {
        guard let value else { return style.dim("(none)") }
        let text = value.jsonText
        guard text.count > limit else { return json(value, style: style, indent: nil) }
        return style.dim(String(text.prefix(limit - 1)) + "…")
    }
}
