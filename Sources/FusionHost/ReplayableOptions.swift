/// Creation options that make a session replay exactly, for recordings and journals:
/// a seed drawn when none is given, and always the manual clock. `realTime` says the
/// session asked for the system clock, so the host moves the manual clock in real time
/// and writes down each move.
public enum ReplayableOptions {
    public static func make(_ given: JSONValue) -> (options: JSONValue, realTime: Bool) {
        var members = given.members ?? []
        let realTime = given["clock"]?.stringValue != "manual"
        members.removeAll { $0.key == "clock" }
        members.append(JSONMember("clock", "manual"))
        if given["seed"] == nil {
            // Below 2^53, so that every JSON reader keeps it exact.
            members.append(JSONMember("seed", .integer(Int.random(in: 0..<(1 << 53)))))
        }
        return (.object(members), realTime)
    }
}
