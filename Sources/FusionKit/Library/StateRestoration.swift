/// Reads a state given to a new instance, saved at some `stateVersion` of its feature:
/// one from an older version is migrated by the feature or refused, one from a newer
/// version is refused, and one with a field the current `State` does not have is
/// refused, since synthesized `Decodable` would skip that field in silence (a renamed
/// field would come back as its default). Never a partial read.
/// Derived values are then recomputed by the feature (`Feature.deriveValues(in:)`).
/// The native library and the WebAssembly module both read given states here.
@usableFromInline
enum StateRestoration {
    /// The state `given` as `feature` is to start from: decoded (migrated when older),
    /// then with its derived values recomputed, whatever the given state said of them.
    @usableFromInline
    static func restore<F: Feature>(_ feature: F, _ given: JSONValue, savedAt version: Int?) throws(FusionError) -> F.State {
        var state = try decode(F.self, given, savedAt: version)
        feature.deriveValues(in: &state)
        return state
    }

    @usableFromInline
    static func decode<F: Feature>(_ type: F.Type, _ given: JSONValue, savedAt version: Int?) throws(FusionError) -> F.State {
        let current = F.stateVersion
        let saved = version ?? current
        let name = "feature \"\(F.name)\""
        guard saved <= current else {
            throw FusionError(
                .invalidState,
                "the state was saved at state version \(saved) of \(name), newer than this library's version \(current); a library cannot read a state from a later version"
            )
        }
        var json = given
        var origin = ""
        if saved < current {
            do throws(StateMigrationError) {
                json = try F.migrateState(given, from: saved)
            } catch  where error.isNoMigration {
                throw FusionError(
                    .invalidState,
                    "the state was saved at state version \(saved) of \(name); this library's \(name) is at state version \(current) and has no migration from version \(saved)"
                )
            } catch {
                throw FusionError(
                    .invalidState, "migrating the state of \(name) from state version \(saved) to \(current) failed: \(error)")
            }
            origin = " (migrated from state version \(saved))"
        }
        // A state given with no version may be one saved by another version of the
        // feature: say how to tell. When its version was given, the field named is all
        // that is wrong.
        let hint =
            version == nil
            ? "; if it was saved by another version of \(name), give its \"stateVersion\" (this library's is \(current))" : ""
        let state: F.State
        do {
            state = try F.State(json: json)
        } catch {
            throw FusionError(.invalidState, "the given state\(origin) does not fit \(name) (state version \(current)): \(error)\(hint)")
        }
        // What the decoded state writes back is every field it read; a given field not
        // among them was dropped. (A state that cannot be written fails at its first read.)
        if let path = firstDroppedField(json, state.jsonValue, path: "$") {
            throw FusionError(
                .invalidState,
                "the given state\(origin) does not fit \(name) (state version \(current)): it has a field \(path) that this version does not have\(hint)"
            )
        }
        return state
    }

    /// The path of the first object member of `given` that `written` lacks; a member
    /// whose value is null counts as absent (an optional field that is nil is not written).
    static func firstDroppedField(_ given: JSONValue, _ written: JSONValue, path: String) -> String? {
        switch (given, written) {
        case (.object(let members), .object(let kept)):
            let index = kept.count > 8 ? firstByKey(kept) : nil
            for member in members {
                let memberPath = path + "." + member.key
                let match = index.map { $0[member.key] } ?? kept.first { $0.key == member.key }?.value
                guard let match else {
                    if member.value == .null { continue }
                    return memberPath
                }
                if let dropped = firstDroppedField(member.value, match, path: memberPath) { return dropped }
            }
        case (.array(let items), .array(let kept)):
            for (position, (item, match)) in zip(items, kept).enumerated() {
                if let dropped = firstDroppedField(item, match, path: "\(path)[\(position)]") { return dropped }
            }
        default:
            break
        }
        return nil
    }

    /// Each key's first value. (Built by hand: the initializer that merges duplicate keys
    /// casts dynamically, which Embedded Swift cannot.)
    private static func firstByKey(_ members: [JSONMember]) -> [String: JSONValue] {
        var index: [String: JSONValue] = [:]
        for member in members where index[member.key] == nil { index[member.key] = member.value }
        return index
    }
}
