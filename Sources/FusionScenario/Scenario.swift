import FusionHost

/// An Input/State spec as a file (docs/scenarios.md): a feature, how it starts, and
/// steps, each doing at most one thing and checking what it names.
public struct Scenario: Sendable {
    public var name: String
    /// Where it was read from, for messages; nil for one built in code.
    public var path: String?
    /// "wifi", or "Chores/counter" qualified by its library's name.
    public var feature: String
    /// The creation options, the manual clock by default.
    public var options: JSONValue
    public var exhaustive: Bool
    public var nothingPending: Bool
    public var steps: [Step]

    public struct Step: Sendable {
        public enum Action: Sendable, Equatable {
            case send(JSONValue)
            case advance(seconds: Double)
            case respond(kind: String, payload: JSONValue?, result: JSONValue)
            case fail(kind: String, payload: JSONValue?, message: String)
            /// Back to a kept version's state (fk_goto; the options need "history").
            case goto(version: UInt64)
            case check
        }

        public var action: Action
        /// Fields of the state that must have these values (objects compared field by field).
        public var expect: JSONValue?
        /// The whole state, exactly.
        public var state: JSONValue?
        /// The status the step must be refused with.
        public var error: String?
        /// The kinds of the host requests open after the step, oldest first.
        public var requests: [String]?

        /// An `advance` step's seconds as the nanoseconds fk_advance_clock moves by; nil when
        /// they do not fit its unsigned 64-bit argument (about 584 years), which the step
        /// is then refused for, as the Python runner refuses it.
        public static func nanoseconds(ofSeconds seconds: Double) -> UInt64? {
            UInt64(exactly: (seconds * 1e9).rounded())
        }

        /// How the step is named in a failure: `send "increase"`, `advance 1`, `respond fetchPet`.
        public var label: String {
            switch action {
            case .send(let input): return "send \(input.jsonText)"
            case .advance(let seconds): return "advance \(JSONValue.double(seconds).jsonText)"
            case .respond(let kind, _, _): return "respond \(kind)"
            case .fail(let kind, _, _): return "fail \(kind)"
            case .goto(let version): return "goto \(version)"
            case .check: return "check"
            }
        }
    }
}

extension Scenario {
    static let topLevelKeys = ["$schema", "name", "note", "recorded", "feature", "options", "exhaustive", "nothingPending", "steps"]
    static let stepKeys = ["send", "advance", "respond", "fail", "goto", "expect", "state", "error", "requests", "note"]
    static let actionKeys = ["send", "advance", "respond", "fail", "goto"]

    /// Reads a scenario from its JSON, checking every key.
    public init(json: JSONValue, path: String) throws(ScenarioFileError) {
        func fail(_ reason: String) -> ScenarioFileError { ScenarioFileError(path: path, reason: reason) }
        guard let members = json.members else { throw fail("a scenario is a JSON object; got \(json.kindDescription)") }
        for key in members.map(\.key) where !Self.topLevelKeys.contains(key) {
            throw fail("unknown key \"\(key)\"; the keys: \(Self.topLevelKeys.joined(separator: ", "))")
        }
        // What is for people is text; a file with a number there fails in every runner
        // (Python and Java refused it at load while `fusion test` passed it).
        for key in ["$schema", "note"] where json[key] != nil && json[key]?.stringValue == nil {
            throw fail("\"\(key)\" is a string; got \(json[key]!.kindDescription)")
        }
        guard let feature = json["feature"]?.stringValue, !feature.isEmpty else {
            throw fail("\"feature\" is required: the feature's name")
        }
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let name = json["name"].map { $0.stringValue } ?? fileName
        guard let name else { throw fail("\"name\" is a string") }
        var options = [JSONMember("clock", "manual")]
        if let given = json["options"] {
            guard let entries = given.members else {
                throw fail("\"options\" is an object (the creation options); got \(given.kindDescription)")
            }
            for entry in entries {
                options.removeAll { $0.key == entry.key }
                options.append(entry)
            }
        }
        func flag(_ key: String, _ fallback: Bool) throws(ScenarioFileError) -> Bool {
            guard let value = json[key] else { return fallback }
            guard let flag = value.boolValue else { throw fail("\"\(key)\" is true or false; got \(value.kindDescription)") }
            return flag
        }
        guard let stepsJSON = json["steps"]?.elements else { throw fail("\"steps\" is required: a list of steps") }
        var steps: [Step] = []
        for (index, item) in stepsJSON.enumerated() {
            do throws(ScenarioFileError) {
                steps.append(try Step(json: item, path: path))
            } catch {
                throw fail("step \(index + 1): \(error.reason)")
            }
        }
        self.init(
            name: name, path: path, feature: feature, options: .object(options),
            exhaustive: try flag("exhaustive", false), nothingPending: try flag("nothingPending", true), steps: steps)
    }

    /// Reads a scenario file.
    public init(contentsOf path: String) throws(ScenarioFileError) {
        let bytes: [UInt8]
        do throws(FileBytes.Failure) { bytes = try FileBytes.read(path) } catch {
            throw ScenarioFileError(path: path, reason: error.reason)
        }
        let json: JSONValue
        do throws(JSONParseError) { json = try JSONParser.parse(bytes) } catch {
            throw ScenarioFileError(path: path, reason: "not JSON: \(error)")
        }
        try self.init(json: json, path: path)
    }
}

extension Scenario.Step {
    init(json: JSONValue, path: String) throws(ScenarioFileError) {
        func fail(_ reason: String) -> ScenarioFileError { ScenarioFileError(path: path, reason: reason) }
        guard let members = json.members else { throw fail("a step is a JSON object; got \(json.kindDescription)") }
        for key in members.map(\.key) where !Scenario.stepKeys.contains(key) {
            throw fail("unknown key \"\(key)\"; a step's keys: \(Scenario.stepKeys.joined(separator: ", "))")
        }
        let actions = Scenario.actionKeys.filter { json[$0] != nil }
        guard actions.count <= 1 else { throw fail("a step does one thing; this one has \(actions.joined(separator: " and "))") }
        switch actions.first {
        case "send":
            // Any JSON: what the library refuses is a step that expects its "error" (a
            // recording of a session keeps the inputs refused, `{}` or `5` too).
            action = .send(json["send"]!)
        case "advance":
            guard let seconds = json["advance"]!.numberValue, seconds >= 0, seconds.isFinite else {
                throw fail("\"advance\" is a number of seconds, 0 or more")
            }
            action = .advance(seconds: seconds)
        case "goto":
            guard let version = json["goto"]!.wholeValue.flatMap(UInt64.init(exactly:)) else {
                throw fail("\"goto\" is a version number (0 or more) the instance keeps")
            }
            action = .goto(version: version)
        case "respond", "fail":
            let key = actions[0]
            let answer = json[key]!
            guard let fields = answer.members, let kind = answer["kind"]?.stringValue else {
                throw fail("\"\(key)\" is an object with the request's \"kind\"")
            }
            let valueKey = key == "respond" ? "result" : "message"
            if let unknown = fields.first(where: { !["kind", "payload", valueKey].contains($0.key) }) {
                throw fail("\(key): unknown key \"\(unknown.key)\" (it has kind, \(valueKey) and, optionally, payload)")
            }
            if key == "respond" {
                guard let result = answer["result"] else { throw fail("\"respond\" needs the \"result\" to answer with") }
                action = .respond(kind: kind, payload: answer["payload"], result: result)
            } else {
                guard let message = answer["message"]?.stringValue else { throw fail("\"fail\" needs a \"message\" (a string)") }
                action = .fail(kind: kind, payload: answer["payload"], message: message)
            }
        default:
            action = .check
        }
        if let note = json["note"], note.stringValue == nil { throw fail("\"note\" is a string; got \(note.kindDescription)") }
        expect = json["expect"]
        if let expect, expect.members == nil { throw fail("\"expect\" is an object: the fields to check") }
        state = json["state"]
        if let state, state.members == nil { throw fail("\"state\" is an object: the whole state") }
        if let error = json["error"] {
            guard let status = error.stringValue else { throw fail("\"error\" is a status name such as \"FK_ERR_UNKNOWN_INPUT\"") }
            self.error = status
        } else {
            self.error = nil
        }
        if let requests = json["requests"] {
            guard let kinds = requests.elements?.compactMap(\.stringValue), kinds.count == requests.elements?.count else {
                throw fail("\"requests\" is a list of request kinds")
            }
            self.requests = kinds
        } else {
            self.requests = nil
        }
    }
}
