import FusionHost

/// The short way to write an input: `case field=value …`.
///
///     increase                      →  "increase"
///     answerChanged text=hello      →  {"answerChanged":{"text":"hello"}}
///     answerChanged text="two words" / text='two words'
///     setVolume level=3 muted=false →  {"setVolume":{"level":3,"muted":false}}
///     {"answerChanged":{"text":"hi"}}   raw JSON (a line starting with { " or [) is sent as it is
///
/// A value is read as JSON when it parses (3, true, null, [1,2], {"a":1}, "quoted"),
/// and as a string when it does not. A field the manifest types as a string takes the
/// text as it is (text=123 is "123"); single quotes always mean a literal string.
/// Inside double quotes, brackets and braces, spaces do not end a value.
enum InputSyntax {
    /// One `field=value` of an input.
    struct FieldText: Equatable {
        var name: String
        var value: String
        /// Written in single quotes: a string whatever it looks like.
        var literal: Bool
    }

    /// An input as written: raw JSON, or a case name with fields.
    enum Written: Equatable {
        case json(String)
        case structured(name: String, fields: [FieldText])
    }

    struct SyntaxError: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    static func looksLikeJSON(_ text: String) -> Bool {
        guard let first = text.first else { return false }
        return first == "{" || first == "\"" || first == "["
    }

    /// Reads a line typed in the REPL.
    static func parse(line: String) throws(SyntaxError) -> Written {
        let trimmed = line.trimmingWhitespace
        guard !trimmed.isEmpty else { throw SyntaxError("empty input") }
        if looksLikeJSON(trimmed) { return .json(trimmed) }
        let tokens = try tokenize(trimmed)
        guard let name = tokens.first else { throw SyntaxError("empty input") }
        guard !name.literal, !name.text.contains("=") else {
            throw SyntaxError("an input starts with its case name, e.g. increase or answerChanged text=hi")
        }
        var fields: [FieldText] = []
        for token in tokens.dropFirst() {
            fields.append(try field(from: token, after: name.text))
        }
        return .structured(name: name.text, fields: fields)
    }

    /// Reads the INPUT words of `fusion send`: each word is an input (a case name, raw
    /// JSON, or a whole `case field=value` line in quotes), and a `field=value` word
    /// adds a field to the input before it, so `answerChanged text=hi` needs no quotes.
    static func parse(words: [String]) throws(SyntaxError) -> [Written] {
        var inputs: [Written] = []
        for word in words {
            if let (name, value) = splitField(word), !looksLikeJSON(word) {
                guard case .structured(let caseName, var fields)? = inputs.last else {
                    throw SyntaxError("\"\(word)\" is a field, but no input case comes before it")
                }
                fields.append(FieldText(name: name, value: value, literal: false))
                inputs[inputs.count - 1] = .structured(name: caseName, fields: fields)
            } else {
                do throws(SyntaxError) {
                    inputs.append(try parse(line: word))
                } catch {
                    throw SyntaxError("input \(inputs.count + 1) (\(word)): \(error.message)")
                }
            }
        }
        return inputs
    }

    /// The JSON an input stands for, with field values typed by the feature's manifest.
    static func json(for written: Written, in feature: Manifest.Feature?) throws(SyntaxError) -> String {
        switch written {
        case .json(let text):
            return text
        case .structured(let name, let fields):
            guard !fields.isEmpty else { return JSONValue.quoted(name) }
            var members: [JSONMember] = []
            for field in fields {
                guard !members.contains(where: { $0.key == field.name }) else {
                    throw SyntaxError("field \"\(field.name)\" is given twice")
                }
                let schema = feature?.input(named: name)?.field(named: field.name)?.schema
                members.append(JSONMember(field.name, value(of: field, schema: schema)))
            }
            return JSONValue.object([JSONMember(name, .object(members))]).jsonText
        }
    }

    static func value(of field: FieldText, schema: JSONValue?) -> JSONValue {
        if field.literal { return .string(field.value) }
        let parsed = try? JSONParser.parse(field.value)
        guard let schema, SchemaText.acceptsOnlyStrings(schema) else { return parsed ?? .string(field.value) }
        // A string field: text=123 means the text "123"; quotes and null keep their JSON sense.
        switch parsed {
        case .string?: return parsed ?? .string(field.value)
        case .null? where SchemaText.acceptsNull(schema): return .null
        default: return .string(field.value)
        }
    }

    private static func splitField(_ word: String) -> (String, String)? {
        guard let equals = word.firstIndex(of: "=") else { return nil }
        let name = word[..<equals]
        guard let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return (String(name), String(word[word.index(after: equals)...]))
    }

    private static func field(from token: Token, after caseName: String) throws(SyntaxError) -> FieldText {
        guard let (name, value) = splitField(token.text) else {
            throw SyntaxError(
                "expected field=value after \(caseName), found \"\(token.text)\"; a value with spaces goes in quotes: field=\"two words\"")
        }
        return FieldText(name: name, value: value, literal: token.literal)
    }

    struct Token: Equatable {
        var text: String
        var literal: Bool
    }

    /// Splits at spaces that are outside quotes, brackets and braces. Single quotes are
    /// removed (their content is literal); double quotes stay, for the JSON reading.
    static func tokenize(_ line: String) throws(SyntaxError) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var literal = false
        var inToken = false
        var depth = 0
        var quote: Character?
        var escaped = false
        for character in line {
            if let open = quote {
                if open == "\"" {
                    current.append(character)
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { quote = nil }
                } else if character == "'" {
                    quote = nil
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if depth == 0 {
                    if inToken { tokens.append(Token(text: current, literal: literal)) }
                    current = ""
                    literal = false
                    inToken = false
                } else {
                    current.append(character)
                }
            case "'":
                quote = "'"
                literal = true
                inToken = true
            case "\"":
                quote = "\""
                current.append(character)
                inToken = true
            case "[", "{":
                depth += 1
                current.append(character)
                inToken = true
            case "]", "}":
                depth = max(0, depth - 1)
                current.append(character)
                inToken = true
            default:
                current.append(character)
                inToken = true
            }
        }
        if let open = quote { throw SyntaxError("unterminated \(open == "'" ? "single" : "double") quote") }
        if inToken { tokens.append(Token(text: current, literal: literal)) }
        return tokens
    }
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

extension InputSyntax {
    /// An input's JSON as a person would type it: `increase`, `answerChanged text=hi`,
    /// `passwordChanged password="two words"`; JSON as it is when it has no such form.
    static func display(_ input: JSONValue) -> String {
        if let name = input.stringValue { return name }
        guard let members = input.members, members.count == 1, let fields = members[0].value.members else {
            return input.jsonText
        }
        var words = [members[0].key]
        for field in fields {
            let name = field.key
            guard let text = field.value.stringValue else {
                words.append("\(name)=\(field.value.jsonText)")
                continue
            }
            // Plain words as they are; anything that would read differently, quoted.
            let plain =
                !text.isEmpty && !text.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "=" })
                && (try? JSONParser.parse(text)) == nil
            words.append("\(name)=\(plain ? text : JSONValue.quoted(text))")
        }
        return words.joined(separator: " ")
    }
}
