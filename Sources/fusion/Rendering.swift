import FusionHost

/// JSON for people: coloured by kind, on one line when it fits, indented when not.
enum Rendering {
    /// A state: one line when it fits `width` columns (or always, with no width),
    /// one member per line otherwise. Top-level keys in `changed` stand out.
    static func state(_ value: JSONValue, style: Style, width: Int?, changed: Set<String> = []) -> String {
        let compact = json(value, style: style, indent: nil, changed: changed)
        guard let width else { return compact }
        let plainWidth = DisplayWidth.of(value.jsonText)
        return plainWidth <= width ? compact : json(value, style: style, indent: 2, changed: changed)
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
        case .number(let text): out += style.number(text)
        case .string(let text): out += style.string(JSONValue.quoted(text))
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
