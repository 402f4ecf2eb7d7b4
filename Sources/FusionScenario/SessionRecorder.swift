import FusionHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records a session as a scenario file that replays it (docs/scenarios.md, "Record
/// and replay"): the creation options with the seed drawn, then a step per input, goto,
/// host answer and clock move, each with the whole state seen after it.
///
/// Everything the session does must go through the recorder, which applies it and
/// writes the step in one go, so the file's order is the order things happened. The
/// file is valid JSON after every step: a session that ends abruptly still replays.
///
/// A session on the system clock runs on a manual clock that the recorder moves in
/// real time (every 10 ms). A move that changed the state or what is pending is
/// written as an `advance` step with the time since the last one, so a replay moves
/// the clock by exactly the same amounts at the same points, and the effects wake as
/// they did. Moves while nothing was pending are left out: no effect could see them.
public final class SessionRecorder: Sendable {
    public let instance: HostedInstance
    public let path: String
    /// The crash journal every change goes through first, when the session has one.
    public let journal: JournaledInstance?

    private struct Recording {
        let descriptor: Int32
        var steps = 0
        /// Clock time moved and not yet written as a step.
        var unwrittenNanoseconds: UInt64 = 0
        var fingerprint: Fingerprint
        /// Why the file could not be written, once; the session goes on.
        var failure: String?
    }

    /// What a clock move must leave alone for it to be merged with the next one.
    private struct Fingerprint: Equatable {
        var version: UInt64
        /// nil when the library predates fk_pending: then every move is written.
        var effects: UInt64?
        var requests: UInt64?
    }

    private let recording: LockedValue<Recording>
    private let ticker = RealTimeTicker()
    private let realTime: Bool

    /// How a recorded session's instance is created from the options a person asked
    /// for: a seed drawn when none is given, and always the manual clock (moved in real
    /// time for a session that asked for the system clock). `realTime` says which.
    public static func recordingOptions(_ given: JSONValue) -> (options: JSONValue, realTime: Bool) {
        ReplayableOptions.make(given)
    }

    /// Starts recording `instance` (created with `options`, from `recordingOptions`) to
    /// `path`, replacing what is there. `feature` is the name a replay finds it by.
    ///
    /// With a `journal` (made with `drivesClock: false`), `instance` is the journal's and
    /// every change, clock moves included, is journaled before it is applied, then
    /// recorded: one clock in real time for both, so the two files tell one story.
    public init(
        path: String, feature: String, options: JSONValue, instance: HostedInstance, realTime: Bool,
        recordedBy: String, journal: JournaledInstance? = nil
    ) throws(ScenarioFileError) {
        self.instance = instance
        self.path = path
        self.realTime = realTime
        self.journal = journal
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ScenarioFileError(path: path, reason: "cannot write it: \(String(cString: strerror(errno)))") }
        let library = instance.library.summary
        let recorded: JSONValue = [
            "by": .string(recordedBy),
            "library": .string("\(library.libraryName) \(library.libraryVersion)"),
            "clock": .string(realTime ? "system, recorded as the moves of a manual clock" : "manual")
        ]
        let header = """
            {
              "name": \(JSONValue.quoted("\(feature), recorded by \(recordedBy)")),
              "recorded": \(recorded.jsonText),
              "feature": \(JSONValue.quoted(feature)),
              "options": \(options.jsonText),
              "nothingPending": false,
              "steps": [
            """
        let fingerprint = Self.fingerprint(of: instance)
        recording = LockedValue(Recording(descriptor: descriptor, fingerprint: fingerprint))
        if !Self.writeAll(descriptor, header + Self.trailer) {
            close(descriptor)
            throw ScenarioFileError(path: path, reason: "cannot write it: \(String(cString: strerror(errno)))")
        }
        if realTime { ticker.start { [weak self] elapsed in self?.tick(elapsed) } }
    }

    deinit {
        stop()
        recording.withLock { _ = close($0.descriptor) }
    }

    /// Stops moving the clock; no step is written after this returns but those the
    /// session's own calls make.
    public func stop() {
        ticker.stop()
    }

    /// Why writing the file failed, if it did (the session itself goes on).
    public var failure: String? { recording.withLock { $0.failure } }

    // MARK: What a session does

    /// fk_send, recorded as `{"send": input}`; a refused input as a step expecting the
    /// same refusal.
    public func send(_ inputJSON: String) throws {
        let input = (try? JSONParser.parse(inputJSON)) ?? .string(inputJSON)
        try perform("send", input) {
            if let journal { try journal.send(inputJSON) } else { try instance.send(inputJSON) }
        }
    }

    /// fk_goto, recorded as `{"goto": version}`.
    public func goto(version: UInt64) throws {
        try perform("goto", .integer(Int(clamping: version))) {
            if let journal { try journal.goto(version: version) } else { _ = try instance.goto(version: version) }
        }
    }

    /// fk_respond to an open request, recorded as `{"respond": {kind, payload, result}}`.
    public func respond(to request: HostRequestEvent, result: JSONValue) throws {
        guard let id = request.id else { return }
        let answer: JSONValue = ["kind": .string(request.kind ?? ""), "payload": request.payload ?? .null, "result": result]
        try perform("respond", answer) {
            if let journal { try journal.respond(to: id, result: result) } else { try instance.respond(to: id, result: result) }
        }
    }

    /// fk_fail_request, recorded as `{"fail": {kind, payload, message}}`.
    public func fail(_ request: HostRequestEvent, message: String) throws {
        guard let id = request.id else { return }
        let answer: JSONValue = ["kind": .string(request.kind ?? ""), "payload": request.payload ?? .null, "message": .string(message)]
        try perform("fail", answer) {
            if let journal { try journal.failRequest(id, message: message) } else { try instance.failRequest(id, message: message) }
        }
    }

    /// fk_advance_clock, asked for by the session itself (a manual-clock session).
    public func advance(byNanoseconds nanoseconds: UInt64) throws {
        try recording.withLock { recording in
            try moveClock(nanoseconds)
            recording.unwrittenNanoseconds &+= nanoseconds
            writeAdvance(&recording)
        }
    }

    /// Moves the clock: through the journal (journaled first) when there is one.
    private func moveClock(_ nanoseconds: UInt64) throws {
        if let journal {
            try journal.advanceClock(byNanoseconds: nanoseconds)
        } else {
            try instance.advanceClock(byNanoseconds: nanoseconds)
        }
    }

    // MARK: Steps

    /// Applies one action and writes its step, the clock's unwritten moves first. A
    /// refusal by the library is a step too (the replay expects the same refusal); a
    /// change the journal could not write was not applied, and is not recorded.
    private func perform(_ key: String, _ value: JSONValue, _ body: () throws -> Void) throws {
        try recording.withLock { recording in
            if recording.unwrittenNanoseconds > 0 { writeAdvance(&recording) }
            var refusal: FusionHostError?
            do {
                try body()
            } catch let error as FusionHostError {
                refusal = error
            } catch JournaledCallError.refused(let error) {
                refusal = error
            }
            // What a runner does after every step: let the effects just started settle.
            try? instance.advanceClock(byNanoseconds: 0)
            var step = [JSONMember(key, value)]
            if let refusal {
                guard case .failed(let failure) = refusal else { throw refusal }
                step.append(JSONMember("error", .string(failure.statusName)))
            }
            append(&recording, step)
            if let refusal { throw refusal }
        }
    }

    private func writeAdvance(_ recording: inout Recording) {
        // Nanoseconds / 1e9, correctly rounded: the double a replay reads the time back as.
        let seconds = Double(recording.unwrittenNanoseconds) / 1_000_000_000
        recording.unwrittenNanoseconds = 0
        append(&recording, [JSONMember("advance", .double(seconds))])
    }

    /// Writes a step with the state after it; the file stays valid JSON.
    private func append(_ recording: inout Recording, _ members: [JSONMember]) {
        var members = members
        if let state = try? instance.state(), let value = try? state.value() { members.append(JSONMember("state", value)) }
        recording.fingerprint = Self.fingerprint(of: instance)
        let text = (recording.steps == 0 ? "\n    " : ",\n    ") + JSONValue.object(members).jsonText + Self.trailer
        recording.steps += 1
        guard recording.failure == nil else { return }
        if lseek(recording.descriptor, -off_t(Self.trailer.utf8.count), SEEK_END) < 0 || !Self.writeAll(recording.descriptor, text) {
            recording.failure = "cannot write \(path): \(String(cString: strerror(errno)))"
        }
    }

    // MARK: The clock in real time

    private func tick(_ nanoseconds: UInt64) {
        recording.withLock { recording in
            // With nothing pending no effect can tell that time moved.
            guard recording.fingerprint.effects != 0 else { return }
            guard (try? moveClock(nanoseconds)) != nil else { return }
            recording.unwrittenNanoseconds &+= nanoseconds
            if Self.fingerprint(of: instance) != recording.fingerprint { writeAdvance(&recording) }
        }
    }

    private static func fingerprint(of instance: HostedInstance) -> Fingerprint {
        let version = (try? instance.version()) ?? 0
        guard let pending = try? instance.pending() else { return Fingerprint(version: version, effects: nil, requests: nil) }
        return Fingerprint(version: version, effects: pending.effects, requests: pending.requests)
    }

    // MARK: Text

    private static let trailer = "\n  ]\n}\n"

    /// Nanoseconds as exact decimal seconds: 1012000000 → "1.012".
    public static func secondsText(_ nanoseconds: UInt64) -> String {
        let whole = nanoseconds / 1_000_000_000
        let fraction = nanoseconds % 1_000_000_000
        guard fraction > 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
