/// One record of a journal, read.
enum JournalRecord: Sendable {
    case send(JSONValue)
    /// An input and the id of the client's message that carried it.
    case sendBy(id: JSONValue, input: JSONValue)
    /// The client message ids of inputs applied before a checkpoint; right after it.
    case applied([JSONValue])
    /// The client message ids of inputs the feature refused before a checkpoint, with
    /// each refusal; right after it (after `applied`).
    case refused([(id: JSONValue, refusal: RecentMessageIDs.Refusal)])
    case goto(UInt64)
    case respond(id: UInt64, result: JSONValue)
    case fail(id: UInt64, message: String)
    case advance(nanoseconds: UInt64)
    /// What fk_checkpoint wrote: a journal replaced by a checkpoint starts with it.
    case checkpoint(JSONValue)
    /// A record that killed the process applying it (a poison input: the feature
    /// trapped), put out of the way by the bridge that took the session over; nothing is
    /// applied. `id`: the client message that carried it, refused from then on; `record`
    /// and `version` (the instance's version when it was applied; nil: the version the
    /// replay has reached at this record), so that the same input on the same state is
    /// refused whatever its id (`JournaledInstance.isPoison`).
    /// `at`: the index (after the header) of the record it puts away, when that record is
    /// still in the journal: a sandboxed plugin faulted on it live, and the bridge put it
    /// away at once (a replay skips the record at `at`).
    case poisoned(id: JSONValue?, record: JSONValue?, version: UInt64? = nil, at: Int? = nil)

    /// The record a journal line holds; nil (with why) for one this build cannot read.
    init(_ json: JSONValue) throws(JournalError.Reason) {
        guard let members = json.members, members.count == 1, let member = members.first else {
            throw "is not an object of one key"
        }
        let value = member.value
        // Any form that reads back as the same number (docs/rules/journal-format.md): 2e9 too.
        func whole(_ value: JSONValue?) -> UInt64? { value?.wholeValue.flatMap { $0 >= 0 ? UInt64($0) : nil } }
        switch member.key {
        case "send":
            self = .send(value)
        case "sendBy":
            guard let id = value["id"], let input = value["input"], value.members?.count == 2 else {
                throw "is a sendBy without an id and an input"
            }
            self = .sendBy(id: id, input: input)
        case "applied":
            guard let ids = value.elements else { throw "has an applied that is not a list" }
            self = .applied(ids)
        case "refused":
            guard let entries = value.elements else { throw "has a refused that is not a list" }
            var refused: [(id: JSONValue, refusal: RecentMessageIDs.Refusal)] = []
            for entry in entries {
                guard entry.members?.count == 3, let id = entry["id"], let status = entry["status"]?.stringValue,
                    let message = entry["message"]?.stringValue
                else { throw "has a refused entry without an id, a status and a message" }
                refused.append((id, RecentMessageIDs.Refusal(status: status, message: message)))
            }
            self = .refused(refused)
        case "goto":
            guard let version = whole(value) else { throw "has a goto to no version" }
            self = .goto(version)
        case "respond":
            guard let id = whole(value["id"]), let result = value["result"] else { throw "is a respond without an id or a result" }
            self = .respond(id: id, result: result)
        case "fail":
            guard let id = whole(value["id"]), let message = value["message"]?.stringValue else {
                throw "is a fail without an id or a message"
            }
            self = .fail(id: id, message: message)
        case "advance":
            guard let nanoseconds = whole(value) else { throw "has an advance that is not whole nanoseconds" }
            self = .advance(nanoseconds: nanoseconds)
        case "checkpoint":
            guard value.members != nil else { throw "has a checkpoint that is not an object" }
            self = .checkpoint(value)
        case "poisoned":
            guard value.members != nil, let id = value["id"], let record = value["record"] else {
                throw "is a poisoned without an id and a record"
            }
            let version = value["version"]
            if version != nil && whole(version) == nil { throw "has a poisoned whose version is not a whole number" }
            let at = value["at"]
            if at != nil && whole(at) == nil { throw "has a poisoned whose at is not a whole number" }
            self = .poisoned(
                id: id == .null ? nil : id, record: record == .null ? nil : record, version: whole(version),
                at: whole(at).map { Int(clamping: $0) })
        default:
            throw JournalError.Reason("is of a kind this build does not know, \"\(member.key)\"")
        }
    }

    var json: JSONValue {
        switch self {
        // Ids, versions and nanoseconds of a session stay far below Int.max.
        case .send(let input): return ["send": input]
        case .sendBy(let id, let input): return ["sendBy": ["id": id, "input": input]]
        case .applied(let ids): return ["applied": .array(ids)]
        case .refused(let entries):
            return [
                "refused": .array(
                    entries.map { ["id": $0.id, "status": .string($0.refusal.status), "message": .string($0.refusal.message)] })
            ]
        case .goto(let version): return ["goto": .integer(Int(clamping: version))]
        case .respond(let id, let result): return ["respond": ["id": .integer(Int(clamping: id)), "result": result]]
        case .fail(let id, let message): return ["fail": ["id": .integer(Int(clamping: id)), "message": .string(message)]]
        case .advance(let nanoseconds): return ["advance": .integer(Int(clamping: nanoseconds))]
        case .checkpoint(let checkpoint): return ["checkpoint": checkpoint]
        case .poisoned(let id, let record, let version, let at):
            var members = [JSONMember("id", id ?? .null), JSONMember("record", record ?? .null)]
            if let version { members.append(JSONMember("version", .integer(Int(clamping: version)))) }
            if let at { members.append(JSONMember("at", .integer(at))) }
            return ["poisoned": .object(members)]
        }
    }

    /// The record that puts `record` out of the way as a poison input.
    static func poisoning(_ record: JSONValue) -> JournalRecord {
        let message: JSONValue? = if case .sendBy(let id, _)? = try? JournalRecord(record) { id } else { nil }
        return .poisoned(id: message, record: record)
    }

    /// The input a record sends (`send`, `sendBy`), in the long form (`"add"` is
    /// `{"add":{}}`, docs/rules/input-shorthand.md), to compare inputs however written.
    static func input(of record: JSONValue?) -> JSONValue? {
        switch record.flatMap({ try? JournalRecord($0) }) {
        case .send(let input)?, .sendBy(_, let input)?: return longForm(input)
        default: return nil
        }
    }

    /// An input as `{"case": {fields}}`: a bare case name is the case without fields.
    static func longForm(_ input: JSONValue) -> JSONValue {
        if case .string(let name) = input { return .object([JSONMember(name, .object([]))]) }
        return input
    }
}
