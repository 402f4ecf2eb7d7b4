import FusionJSON

/// JSON Patch (RFC 6902, with RFC 6901 pointers), applied as a front end applies the
/// library's state patches: Swift's one implementation (docs/rules/json-patch.md), held
/// to the shared vectors in Tests/vectors/json-patch. Tests only: the library makes
/// patches and never applies one.
public enum JSONPatch {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The document after the operations, in order. A patch that fails anywhere throws,
    /// and nothing of it is applied (the document is a value).
    public static func apply(_ operations: [JSONValue], to document: JSONValue) throws(Failure) -> JSONValue {
        var root = document
        for operation in operations {
            guard case .object = operation else { throw Failure("an operation is an object, not \(operation.kindDescription)") }
            let op = operation["op"]?.stringValue ?? "?"
            let path = try string(operation, "path")
            switch op {
            case "add":
                root = try add(try member(operation, "value"), at: path, in: root)
            case "remove":
                root = try remove(path, from: root).document
            case "replace":
                let value = try member(operation, "value")
                root = try replace(path, with: value, in: root)
            case "move":
                let from = try string(operation, "from")
                if from == path {
                    _ = try value(at: from, in: root)
                } else if path.hasPrefix(from + "/") {
                    throw Failure("cannot move \"\(from)\" into its own child \"\(path)\"")
                } else {
                    let removed = try remove(from, from: root)
                    root = try add(removed.value, at: path, in: removed.document)
                }
            case "copy":
                root = try add(try value(at: string(operation, "from"), in: root), at: path, in: root)
            case "test":
                guard try value(at: path, in: root).isEquivalent(to: member(operation, "value")) else {
                    throw Failure("test failed at \"\(path)\"")
                }
            default:
                throw Failure("unknown operation \"\(op)\"")
            }
        }
        return root
    }

    /// The reference tokens of a pointer: "" is the whole document, "/a~1b/0" is ["a/b", "0"].
    public static func pointer(_ text: String) throws(Failure) -> [String] {
        if text.isEmpty { return [] }
        guard text.first == "/" else { throw Failure("the pointer \"\(text)\" does not start with \"/\"") }
        let characters = Array(text)
        for (offset, character) in characters.enumerated() where character == "~" {
            guard offset + 1 < characters.count, characters[offset + 1] == "0" || characters[offset + 1] == "1" else {
                throw Failure("the pointer \"\(text)\" has a \"~\" not followed by 0 or 1")
            }
        }
        // ~1 before ~0, so that "~01" is "~1" and not "/".
        return text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).replacing("~1", with: "/").replacing("~0", with: "~") }
    }

    private static func member(_ operation: JSONValue, _ key: String) throws(Failure) -> JSONValue {
        guard let value = operation[key] else { throw Failure("operation \(operation.jsonText) has no \"\(key)\"") }
        return value
    }

    private static func string(_ operation: JSONValue, _ key: String) throws(Failure) -> String {
        guard let text = try member(operation, key).stringValue else { throw Failure("\"\(key)\" is not a string") }
        return text
    }

    /// An array index: "0" or digits without a leading zero, naming an element; for
    /// `add`, also the length or "-", both meaning the end.
    private static func index(_ token: String, in elements: [JSONValue], _ path: String, forAdd: Bool) throws(Failure) -> Int {
        if forAdd && token == "-" { return elements.count }
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isNumber }), token == "0" || token.first != "0" else {
            throw Failure("\"\(token)\" in \"\(path)\" is not an array index")
        }
        guard let index = Int(token), index < elements.count || (forAdd && index == elements.count) else {
            throw Failure("index \(token) in \"\(path)\" is out of range (length \(elements.count))")
        }
        return index
    }

    private static func value(at path: String, in root: JSONValue) throws(Failure) -> JSONValue {
        var node = root
        for token in try pointer(path) { node = try child(token, of: node, path) }
        return node
    }

    private static func child(_ token: String, of node: JSONValue, _ path: String) throws(Failure) -> JSONValue {
        switch node {
        case .array(let elements): return elements[try index(token, in: elements, path, forAdd: false)]
        case .object(let members):
            guard let found = members.first(where: { $0.key == token }) else { throw Failure("\"\(path)\" does not exist") }
            return found.value
        default: throw Failure("\"\(path)\" does not exist: \(node.kindDescription) has no members")
        }
    }

    private static func add(_ value: JSONValue, at path: String, in root: JSONValue) throws(Failure) -> JSONValue {
        let tokens = try pointer(path)
        guard !tokens.isEmpty else { return value }
        return try changing(root, tokens[...], path) { (container: JSONValue, last: String) throws(Failure) -> (JSONValue, JSONValue?) in
            switch container {
            case .array(var elements):
                elements.insert(value, at: try index(last, in: elements, path, forAdd: true))
                return (.array(elements), nil)
            case .object(var members):
                if let at = members.firstIndex(where: { $0.key == last }) {
                    members[at].value = value
                } else {
                    members.append(JSONMember(last, value))
                }
                return (.object(members), nil)
            default:
                throw Failure("\"\(path)\" does not exist: its parent is \(container.kindDescription)")
            }
        }.0
    }

    /// The value at `path` replaced where it is: a member keeps its place among the others.
    private static func replace(_ path: String, with value: JSONValue, in root: JSONValue) throws(Failure) -> JSONValue {
        let tokens = try pointer(path)
        guard !tokens.isEmpty else { return value }
        return try changing(root, tokens[...], path) { (container: JSONValue, last: String) throws(Failure) -> (JSONValue, JSONValue?) in
            switch container {
            case .array(var elements):
                elements[try index(last, in: elements, path, forAdd: false)] = value
                return (.array(elements), nil)
            case .object(var members):
                guard let at = members.firstIndex(where: { $0.key == last }) else { throw Failure("\"\(path)\" does not exist") }
                members[at].value = value
                return (.object(members), nil)
            default:
                throw Failure("\"\(path)\" does not exist: its parent is \(container.kindDescription)")
            }
        }.0
    }

    private static func remove(_ path: String, from root: JSONValue) throws(Failure) -> (document: JSONValue, value: JSONValue) {
        let tokens = try pointer(path)
        guard !tokens.isEmpty else { throw Failure("cannot remove the whole document") }
        let (document, removed) = try changing(root, tokens[...], path) {
            (container: JSONValue, last: String) throws(Failure) -> (JSONValue, JSONValue?) in
            switch container {
            case .array(var elements):
                let removed = elements.remove(at: try index(last, in: elements, path, forAdd: false))
                return (.array(elements), removed)
            case .object(var members):
                guard let at = members.firstIndex(where: { $0.key == last }) else { throw Failure("\"\(path)\" does not exist") }
                let removed = members.remove(at: at).value
                return (.object(members), removed)
            default:
                throw Failure("\"\(path)\" does not exist: its parent is \(container.kindDescription)")
            }
        }
        return (document, removed ?? .null)
    }

    /// `node` with the container at all tokens but the last replaced by what `change`
    /// makes of it (given the last token), and what `change` took out.
    private static func changing(
        _ node: JSONValue, _ tokens: ArraySlice<String>, _ path: String,
        _ change: (JSONValue, String) throws(Failure) -> (JSONValue, JSONValue?)
    ) throws(Failure) -> (JSONValue, JSONValue?) {
        guard tokens.count > 1, let first = tokens.first else { return try change(node, tokens.first ?? "") }
        let (changed, removed) = try changing(try child(first, of: node, path), tokens.dropFirst(), path, change)
        switch node {
        case .array(var elements):
            elements[try index(first, in: elements, path, forAdd: false)] = changed
            return (.array(elements), removed)
        case .object(var members):
            guard let at = members.firstIndex(where: { $0.key == first }) else { throw Failure("\"\(path)\" does not exist") }
            members[at].value = changed
            return (.object(members), removed)
        default:
            throw Failure("\"\(path)\" does not exist")
        }
    }
}
