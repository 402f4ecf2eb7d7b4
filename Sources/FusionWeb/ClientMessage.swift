import FusionHost

/// A message from a page, checked: every field present and of its kind, no field the
/// message does not have (a typo is an error, not a silently ignored field).
enum ClientMessage: Equatable {
    case manifest
    case create(feature: String, options: JSONValue?, key: String?, reuse: Bool)
    case send(instance: String, input: JSONValue)
    case respond(instance: String, request: UInt64, result: JSONValue)
    case fail(instance: String, request: UInt64, message: String)
    case advanceClock(instance: String, seconds: Double)
    case resync(instance: String)
    case destroy(instance: String)
    /// Which of these `send` messages (by their ids) the session applied: asked by a
    /// client that lost its connection before their replies.
    case applied(ids: [String])

    /// The instance a message is about, if any.
    var instance: String? {
        switch self {
        case .manifest, .create, .applied: return nil
        case .send(let id, _), .respond(let id, _, _), .fail(let id, _, _), .advanceClock(let id, _),
            .resync(let id), .destroy(let id):
            return id
        }
    }

    /// The fields each type has, besides "type" and "id".
    static let fields: [String: [String]] = [
        "manifest": [],
        "create": ["feature", "options", "key", "reuse"],
        "send": ["instance", "input"],
        "respond": ["instance", "request", "result"],
        "fail": ["instance", "request", "message"],
        "advanceClock": ["instance", "seconds"],
        "resync": ["instance"],
        "destroy": ["instance"],
        "applied": ["ids"]
    ]

    /// The most ids one `applied` message may ask about.
    static let maxAppliedIDs = 1024

    /// The longest instance key a page may choose.
    static let maxKeyLength = 64
}

/// A parsed message with the id its reply carries back ("re").
struct ClientEnvelope {
    /// A number or a string chosen by the client; nil when it sent none.
    var id: JSONValue?
    var message: ClientMessage
}

extension ClientEnvelope {
    static func parse(_ bytes: [UInt8]) throws(RejectedMessage) -> ClientEnvelope {
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONParser.parse(bytes)
        } catch {
            throw RejectedMessage(id: nil, error: .malformed("not JSON: \(error)"))
        }
        guard case .object(let members) = json else {
            throw RejectedMessage(id: nil, error: .malformed("a message is a JSON object with a \"type\"; got \(json.kindDescription)"))
        }
        var id: JSONValue?
        if let given = json["id"] {
            switch given {
            case .integer, .double, .string: id = given
            case .null: id = nil  // the same as no id
            default: throw RejectedMessage(id: nil, error: .malformed("\"id\" is a number or a string; got \(given.kindDescription)"))
            }
        }
        do throws(BridgeError) {
            return ClientEnvelope(id: id, message: try readMessage(json, members))
        } catch {
            throw RejectedMessage(id: id, error: error)
        }
    }

    private static func readMessage(_ json: JSONValue, _ members: [JSONMember]) throws(BridgeError) -> ClientMessage {
        guard let typeValue = json["type"] else { throw .malformed("the message has no \"type\"") }
        guard let type = typeValue.stringValue else { throw .malformed("\"type\" is a string; got \(typeValue.kindDescription)") }
        guard let allowed = ClientMessage.fields[type] else {
            throw .malformed("unknown message type \"\(type)\"; the types: \(ClientMessage.fields.keys.sorted().joined(separator: ", "))")
        }
        for key in members.map(\.key) where key != "type" && key != "id" && !allowed.contains(key) {
            let listed = (["id"] + allowed).joined(separator: ", ")
            throw .malformed("unknown field \"\(key)\" in a \"\(type)\" message; its fields: \(listed)")
        }
        let fields = Fields(type: type, json: json)
        switch type {
        case "manifest":
            return .manifest
        case "create":
            let key = try fields.optionalString("key")
            if let key { try checkKey(key) }
            if json["reuse"] != nil, json["reuse"] != .null, json["key"] == nil || json["key"] == .null {
                throw .malformed("\"reuse\" finds an instance by its \"key\"; give one")
            }
            var options = json["options"]
            if options == .null { options = nil }
            if let options, options.members == nil {
                throw .malformed("\"options\" of a \"create\" message is an object; got \(options.kindDescription)")
            }
            return .create(
                feature: try fields.string("feature"), options: options, key: key, reuse: try fields.optionalBool("reuse") ?? false)
        case "send":
            return .send(instance: try fields.string("instance"), input: try fields.value("input"))
        case "respond":
            return .respond(instance: try fields.string("instance"), request: try fields.requestID(), result: try fields.value("result"))
        case "fail":
            return .fail(instance: try fields.string("instance"), request: try fields.requestID(), message: try fields.string("message"))
        case "advanceClock":
            let seconds = try fields.number("seconds")
            guard seconds >= 0, seconds <= 1e9 else {
                throw .malformed("\"seconds\" of an \"advanceClock\" message is from 0 to 1e9; got \(seconds)")
            }
            return .advanceClock(instance: try fields.string("instance"), seconds: seconds)
        case "resync":
            return .resync(instance: try fields.string("instance"))
        case "applied":
            let ids = try fields.value("ids")
            guard let list = ids.elements, list.count <= ClientMessage.maxAppliedIDs else {
                throw .malformed(
                    "\"ids\" of an \"applied\" message is a list of at most \(ClientMessage.maxAppliedIDs) message ids; got \(ids.kindDescription)"
                )
            }
            return .applied(
                ids: try list.map { (id) throws(BridgeError) -> String in
                    guard let text = id.stringValue else {
                        throw .malformed("\"ids\" of an \"applied\" message are the string ids of send messages; got \(id.kindDescription)")
                    }
                    return text
                })
        default:  // "destroy"; the table above admits no other
            return .destroy(instance: try fields.string("instance"))
        }
    }

    private static func checkKey(_ key: String) throws(BridgeError) {
        let valid =
            !key.isEmpty && key.utf8.count <= ClientMessage.maxKeyLength
            && key.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 95 || byte == 46 || byte == 45
            }
        guard valid else {
            throw .malformed("\"key\" is 1 to \(ClientMessage.maxKeyLength) characters of A-Z a-z 0-9 _ . -; got \(JSONValue.quoted(key))")
        }
    }
}

/// Reads a message's fields, with errors naming the field and the message type.
private struct Fields {
    let type: String
    let json: JSONValue

    func value(_ name: String) throws(BridgeError) -> JSONValue {
        guard let value = json[name] else { throw .malformed("a \"\(type)\" message needs \"\(name)\"") }
        return value
    }

    func string(_ name: String) throws(BridgeError) -> String {
        let value = try value(name)
        guard let text = value.stringValue else {
            throw .malformed("\"\(name)\" of a \"\(type)\" message is a string; got \(value.kindDescription)")
        }
        return text
    }

    func optionalString(_ name: String) throws(BridgeError) -> String? {
        guard let value = json[name], value != .null else { return nil }
        return try string(name)
    }

    func optionalBool(_ name: String) throws(BridgeError) -> Bool? {
        guard let value = json[name], value != .null else { return nil }
        guard let flag = value.boolValue else {
            throw .malformed("\"\(name)\" of a \"\(type)\" message is true or false; got \(value.kindDescription)")
        }
        return flag
    }

    func number(_ name: String) throws(BridgeError) -> Double {
        let value = try value(name)
        guard let number = value.numberValue else {
            throw .malformed("\"\(name)\" of a \"\(type)\" message is a number; got \(value.kindDescription)")
        }
        return number
    }

    func requestID() throws(BridgeError) -> UInt64 {
        let value = try value("request")
        guard let id = value.integerValue.flatMap(UInt64.init(exactly:)) else {
            throw .malformed("\"request\" of a \"\(type)\" message is the request's id, a whole number; got \(value.jsonText)")
        }
        return id
    }
}
