import FusionHost

/// The text of each message the server sends (docs/web-protocol.md). States and
/// patches are the library's own JSON spliced in as it is: the bridge never parses
/// or re-encodes a state.
enum ServerMessage {
    static func welcome(
        session: String, resumed: Bool, instances: [(id: String, feature: String)],
        libraries: LibrarySet, configuration: BridgeConfiguration
    ) -> String {
        let list = instances.map { "{\"instance\":\(JSONValue.quoted($0.id)),\"feature\":\(JSONValue.quoted($0.feature))}" }
        let described = libraries.libraries.map { library -> String in
            let manifest = library.summary
            return "{\"name\":\(JSONValue.quoted(manifest.libraryName)),\"version\":\(JSONValue.quoted(manifest.libraryVersion)),"
                + "\"abiVersion\":\(manifest.abiVersion)}"
        }
        // "library": the first (what a page written for one library reads); "libraries": each.
        return "{\"type\":\"welcome\",\"session\":\"\(session)\",\"resumed\":\(resumed),\"instances\":[\(list.joined(separator: ","))],"
            + "\"library\":\(described[0]),\"libraries\":[\(described.joined(separator: ","))],"
            + "\"limits\":{\"maxMessageBytes\":\(configuration.maxMessageBytes),\"messagesPerSecond\":\(configuration.maxMessagesPerSecond),"
            + "\"instancesPerSession\":\(configuration.maxInstancesPerSession)}}"
    }

    /// A `state` or `patch` message from what fk_state_patch wrote:
    /// {"from":V,"to":N,"patch":[…]} or {"from":null,"to":N,"state":{…}}.
    static func change(instance: String, statePatch json: String) -> String {
        let type = isWholeState(json) ? "state" : "patch"
        // The library's object minus its "{", after our own fields.
        return "{\"type\":\"\(type)\",\"instance\":\(JSONValue.quoted(instance)),\(json.dropFirst())"
    }

    /// Whether fk_state_patch gave the whole state: FusionKit writes "from" first; any
    /// other library's text is read properly.
    static func isWholeState(_ json: String) -> Bool {
        if json.hasPrefix("{\"from\":null,") { return true }
        if json.hasPrefix("{\"from\":") { return false }
        return (try? JSONParser.parse(json))?["from"] == .null
    }

    static func created(re id: JSONValue?, instance: String, feature: String, existing: Bool) -> String {
        "{\"type\":\"created\",\"re\":\(re(id)),\"instance\":\(JSONValue.quoted(instance)),\"feature\":\(JSONValue.quoted(feature)),\"existing\":\(existing)}"
    }

    /// `refused`, when any: the ids of inputs the feature refused, each with its refusal
    /// (done: never applied, and answered with the same error if sent again).
    /// `poisoned`, when any: the ids of inputs that killed the bridge applying them,
    /// refused (`BRIDGE_POISON_INPUT`), never applied.
    static func applied(
        re id: JSONValue?, ids: [String], refused: [(id: String, refusal: BridgeError)] = [], poisoned: [String] = []
    ) -> String {
        let refusals = refused.map {
            "{\"id\":\(JSONValue.quoted($0.id)),\"status\":\(JSONValue.quoted($0.refusal.status)),\"message\":\(JSONValue.quoted($0.refusal.message))}"
        }
        let refusedList = refused.isEmpty ? "" : ",\"refused\":[\(refusals.joined(separator: ","))]"
        let poisonedList = poisoned.isEmpty ? "" : ",\"poisoned\":[\(poisoned.map(JSONValue.quoted).joined(separator: ","))]"
        let applied = ids.map(JSONValue.quoted).joined(separator: ",")
        return "{\"type\":\"applied\",\"re\":\(re(id)),\"ids\":[\(applied)]\(refusedList)\(poisonedList)}"
    }

    static func ok(re id: JSONValue?, version: UInt64?) -> String {
        guard let version else { return "{\"type\":\"ok\",\"re\":\(re(id))}" }
        return "{\"type\":\"ok\",\"re\":\(re(id)),\"version\":\(version)}"
    }

    static func manifest(re id: JSONValue?, json: String) -> String {
        "{\"type\":\"manifest\",\"re\":\(re(id)),\"manifest\":\(json)}"
    }

    static func error(re id: JSONValue?, _ error: BridgeError) -> String {
        "{\"type\":\"error\",\"re\":\(re(id)),\"status\":\(JSONValue.quoted(error.status)),\"message\":\(JSONValue.quoted(error.message))}"
    }

    /// Unsolicited: the instance's state could not be read after a change (it failed:
    /// FK_ERR_INSTANCE_FAILED, or the library's error). Sent once per connection.
    static func failed(instance: String, _ error: BridgeError) -> String {
        "{\"type\":\"failed\",\"instance\":\(JSONValue.quoted(instance)),\"status\":\(JSONValue.quoted(error.status)),\"message\":\(JSONValue.quoted(error.message))}"
    }

    static func destroyed(instance: String) -> String {
        "{\"type\":\"destroyed\",\"instance\":\(JSONValue.quoted(instance))}"
    }

    /// A host request or cancel event (fk_request_fn's JSON) as a message for the page;
    /// nil for an event that is not one of the two.
    static func hostEvent(instance: String, eventJSON: String) -> (message: String, requestID: UInt64, isRequest: Bool)? {
        guard let event = try? JSONParser.parse(eventJSON), let id = event["id"],
            let requestID = id.integerValue.flatMap(UInt64.init(exactly:))
        else {
            return nil
        }
        let idText = id.jsonText
        let quotedInstance = JSONValue.quoted(instance)
        switch event["event"]?.stringValue {
        case "request":
            let kind = event["kind"] ?? .null
            let payload = event["payload"] ?? .null
            return (
                "{\"type\":\"request\",\"instance\":\(quotedInstance),\"id\":\(idText),\"kind\":\(kind.jsonText),\"payload\":\(payload.jsonText)}",
                requestID, true
            )
        case "cancel":
            return ("{\"type\":\"cancel\",\"instance\":\(quotedInstance),\"id\":\(idText)}", requestID, false)
        default:
            return nil
        }
    }

    private static func re(_ id: JSONValue?) -> String { id?.jsonText ?? "null" }
}
