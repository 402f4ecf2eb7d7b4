import FusionHost

/// What running a scenario found: passed, or the first failing step's differences.
public struct ScenarioResult: Sendable {
    public var name: String
    public var path: String?
    public var failures: [String]
    public var passed: Bool { failures.isEmpty }
}

/// Runs scenarios through the C ABI, as any front end drives a feature: create the
/// instance with the scenario's options, apply each step, let effects settle, check.
public struct ScenarioRunner: Sendable {
    public let libraries: LibrarySet

    public init(libraries: LibrarySet) {
        self.libraries = libraries
    }

    /// Reads and runs a file; a file that cannot be read is a failed result saying why.
    public func run(file: String) -> ScenarioResult {
        do throws(ScenarioFileError) {
            return run(try Scenario(contentsOf: file))
        } catch {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return ScenarioResult(name: name, path: file, failures: ["cannot read the scenario: \(error.reason)"])
        }
    }

    /// What a step that passed left behind: told to `run(_:onStep:)` as it goes.
    public struct StepReport: Sendable {
        /// 1 for the first step.
        public var number: Int
        public var step: Scenario.Step
        public var version: UInt64
        public var state: JSONValue
    }

    /// Runs a scenario; `onStep` hears of each step that passed, in order (how
    /// `fusion replay` shows its progress). The result names the first failing step.
    public func run(_ scenario: Scenario, onStep: (StepReport) -> Void = { _ in }) -> ScenarioResult {
        var result = ScenarioResult(name: scenario.name, path: scenario.path, failures: [])
        do throws(StepFailure) {
            try execute(scenario, onStep: onStep)
        } catch {
            result.failures = error.lines
        }
        return result
    }

    private struct StepFailure: Error {
        var lines: [String]
        init(_ heading: String, _ details: [String]) { lines = [heading] + details.map { "  " + $0 } }
    }

    private func execute(_ scenario: Scenario, onStep: (StepReport) -> Void) throws(StepFailure) {
        let target: (library: HostedLibrary, feature: Manifest.Feature)
        do throws(FeatureLookupError) { target = try libraries.resolve(scenario.feature) } catch {
            throw StepFailure("the feature:", [error.description])
        }
        let instance: HostedInstance
        do throws(FusionHostError) { instance = try target.library.create(feature: target.feature.name, options: scenario.options) } catch {
            throw StepFailure("creating the instance:", [error.description])
        }
        defer { try? instance.destroy() }
        let manual = scenario.options["clock"]?.stringValue == "manual"
        let requests = OpenRequests()
        if scenario.options["requests"]?.stringValue == "host" {
            do throws(FusionHostError) { try instance.setRequestHandler { requests.record($0) } } catch {
                throw StepFailure("creating the instance:", [error.description])
            }
        }
        var before = try read(instance, heading: "the initial state")
        for (index, step) in scenario.steps.enumerated() {
            let heading = "step \(index + 1) (\(step.label)):"
            let refusal: FusionHostError?
            switch perform(step.action, on: instance, requests: requests) {
            case .applied: refusal = nil
            case .refused(let error): refusal = error
            case .noRequest(let message): throw StepFailure(heading, [message])
            }
            if manual { try? instance.advanceClock(byNanoseconds: 0) }
            let after = try read(instance, heading: heading)
            try check(
                step, before: before, after: after, refusal: refusal, exhaustive: scenario.exhaustive,
                requests: requests, heading: heading)
            onStep(StepReport(number: index + 1, step: step, version: after.version, state: after.state))
            before = after
        }
        if scenario.nothingPending {
            if manual { try? instance.advanceClock(byNanoseconds: 0) }
            let pending: (effects: UInt64, requests: UInt64)
            do throws(FusionHostError) { pending = try instance.pending() } catch {
                throw StepFailure(
                    "after the last step:",
                    ["cannot check that nothing is pending: \(error) (a library older than fk_pending: set \"nothingPending\": false)"])
            }
            var lines: [String] = []
            if pending.effects > 0 { lines.append("\(pending.effects) effect\(pending.effects == 1 ? "" : "s") still running or waiting") }
            if pending.requests > 0 {
                let kinds = requests.open.map(\.kind).joined(separator: ", ")
                lines.append(
                    "\(pending.requests) host request\(pending.requests == 1 ? "" : "s") unanswered\(kinds.isEmpty ? "" : ": " + kinds)")
            }
            if !lines.isEmpty { throw StepFailure("after the last step, something is still pending:", lines) }
        }
    }

    private func read(_ instance: HostedInstance, heading: String) throws(StepFailure) -> (state: JSONValue, version: UInt64) {
        let state: InstanceState
        do throws(FusionHostError) { state = try instance.state() } catch {
            throw StepFailure(heading, ["reading the state: \(error)"])
        }
        guard let value = try? state.value() else { throw StepFailure(heading, ["the state is not JSON: \(state.json)"]) }
        return (value, state.version)
    }

    private enum Outcome {
        case applied
        case refused(FusionHostError)
        /// A respond or fail step found no such open request.
        case noRequest(String)
    }

    /// Does the step's one thing.
    private func perform(_ action: Scenario.Step.Action, on instance: HostedInstance, requests: OpenRequests) -> Outcome {
        do throws(FusionHostError) {
            switch action {
            case .send(let input):
                try instance.send(input)
            case .advance(let seconds):
                guard let nanoseconds = Scenario.Step.nanoseconds(ofSeconds: seconds) else {
                    return .refused(
                        .failed(
                            CallFailure(
                                function: "fk_advance_clock", status: .invalidArgument, statusName: "FK_ERR_INVALID_ARGUMENT",
                                message:
                                    "seconds \(JSONValue.double(seconds).jsonText) is out of range: the clock moves by at most 2^64 - 1 nanoseconds"
                            )))
                }
                try instance.advanceClock(byNanoseconds: nanoseconds)
            case .respond(let kind, let payload, let result):
                guard let request = requests.oldest(kind: kind, payload: payload) else { return Self.noRequest(kind, payload, requests) }
                try instance.respond(to: request.id, result: result)
                requests.answered(request.id)
            case .fail(let kind, let payload, let message):
                guard let request = requests.oldest(kind: kind, payload: payload) else { return Self.noRequest(kind, payload, requests) }
                try instance.failRequest(request.id, message: message)
                requests.answered(request.id)
            case .goto(let version):
                try instance.goto(version: version)
            case .check:
                break
            }
            return .applied
        } catch {
            return .refused(error)
        }
    }

    private static func noRequest(_ kind: String, _ payload: JSONValue?, _ requests: OpenRequests) -> Outcome {
        let open = requests.open.map { "\($0.kind) \($0.payload.jsonText)" }
        let wanted = payload.map { "\"\(kind)\" with payload \($0.jsonText)" } ?? "\"\(kind)\""
        return .noRequest("no open host request \(wanted); open: \(open.isEmpty ? "none" : open.joined(separator: ", "))")
    }

    private func check(
        _ step: Scenario.Step, before: (state: JSONValue, version: UInt64), after: (state: JSONValue, version: UInt64),
        refusal: FusionHostError?, exhaustive: Bool, requests: OpenRequests, heading: String
    ) throws(StepFailure) {
        var lines: [String] = []
        switch (step.error, refusal) {
        case (nil, let refusal?):
            throw StepFailure(heading, ["refused: \(refusal)"])
        case (let expected?, nil):
            lines.append("expected the step to be refused with \(expected), but it was applied")
        case (let expected?, let refusal?):
            let status = refusal.callFailure?.statusName ?? "\(refusal)"
            if status != expected { lines.append("refused with \(status), expected \(expected): \(refusal)") }
            if after.version != before.version {
                lines.append("a refused step changed the state: version \(before.version) → \(after.version)")
            }
        case (nil, nil):
            break
        }
        if let expect = step.expect { lines += StateComparison.partial(expected: expect, actual: after.state) }
        if let state = step.state { lines += StateComparison.exact(expected: state, actual: after.state) }
        if let kinds = step.requests {
            let open = requests.open.map(\.kind)
            if open != kinds {
                lines.append(
                    "open host requests: expected \(JSONValue.array(kinds.map(JSONValue.string)).jsonText), got \(JSONValue.array(open.map(JSONValue.string)).jsonText)"
                )
            }
        }
        if exhaustive {
            let named = StateComparison.namedPaths(step.expect ?? .object([])) + StateComparison.namedPaths(step.state ?? .object([]))
            let everything = step.state != nil
            for change in StateComparison.changes(from: before.state, to: after.state)
            where !everything && !StateComparison.isNamed(change.path, by: named) {
                lines.append(
                    "\(change.path) changed (\(change.old?.jsonText ?? "absent") → \(change.new?.jsonText ?? "absent")) but the step does not name it"
                )
            }
        }
        if !lines.isEmpty { throw StepFailure(heading, lines) }
    }
}

/// The host requests a scenario's instance has open, in the order they came; fed by
/// the request handler, on whatever thread the library reports them.
final class OpenRequests: Sendable {
    struct Request: Sendable {
        let id: UInt64
        let kind: String
        let payload: JSONValue
    }

    private let requests = LockedValue<[Request]>([])

    var open: [Request] { requests.withLock { $0 } }

    func record(_ event: HostRequestEvent) {
        guard let id = event.id else { return }
        requests.withLock { open in
            if event.event == "request" {
                open.append(Request(id: id, kind: event.kind ?? "", payload: event.payload ?? .null))
            } else {
                open.removeAll { $0.id == id }
            }
        }
    }

    func oldest(kind: String, payload: JSONValue?) -> Request? {
        requests.withLock { open in open.first { $0.kind == kind && (payload.map($0.payload.isEquivalent(to:)) ?? true) } }
    }

    func answered(_ id: UInt64) {
        requests.withLock { $0.removeAll { $0.id == id } }
    }
}

extension FusionHostError {
    var callFailure: CallFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}
