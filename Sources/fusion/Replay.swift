import ArgumentParser
import FusionHost
import FusionScenario

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion replay [LIB…] FILE`: runs a recorded session (or any scenario) again, step by
/// step, and stops at the first state that differs from the one recorded.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded session (fusion run --record) and stop at the first state that differs.",
        usage: "fusion replay [LIB…] FILE",
        discussion: """
            Creates the instance with the recorded options (the same seed, the manual \
            clock), applies each step in order (the inputs, gotos, host answers and clock \
            moves) and compares the state after each with the one recorded. Prints a line \
            per step; at the first difference it stops and shows each differing field by \
            its path. Any scenario file replays the same way (docs/scenarios.md).

            LIB is optional and comes first: without one, the default library is used \
            (see fusion --help).

            EXIT STATUS
              0   every state was as recorded
              1   a state differed, or a step failed (the file could not be read)
              4   the library cannot be used
              64  bad command line
            (fusion help exit-codes: every command's statuses)
            """)

    @Argument(help: ArgumentHelp("Libraries (optional), then the recorded file.", valueName: "lib-or-file"))
    var words: [String] = []

    @Flag(name: .customLong("quiet"), help: "Print only the difference, or nothing when every state was as recorded.")
    var quiet = false

    private var libraries: [String] { Array(words.prefix(while: SharedLibraryName.looksLikeLibrary)) }

    func validate() throws {
        let files = words.dropFirst(libraries.count)
        if files.isEmpty { throw ValidationError("give the recorded file: fusion replay session.scenario.json") }
        if files.count > 1 { throw ValidationError("replay takes one file; run several scenarios with fusion test") }
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        guard let file = words.dropFirst(libraries.count).first else { throw ValidationError("missing FILE") }
        let runner = ScenarioRunner(libraries: try LibraryChoice.load(libraries, limits: plugin.limits))
        let scenario: Scenario
        do throws(ScenarioFileError) { scenario = try Scenario(contentsOf: file) } catch { throw CLIError(.failure, error.description) }
        let style = Style.for(descriptor: STDOUT_FILENO)
        func say(_ text: String) { if !quiet { Terminal.write(text + "\n", to: STDOUT_FILENO) } }
        say("replaying \(file): \(scenario.name) (\(scenario.steps.count) step\(scenario.steps.count == 1 ? "" : "s"))")
        let width = String(scenario.steps.count).count
        let result = runner.run(scenario) { report in
            let number = String(report.number)
            let label = String(repeating: " ", count: width - number.count) + number
            say("  \(label)  \(Self.describe(report.step).padding(to: 32)) \(style.version("v\(report.version)")) \(style.bold("✓"))")
        }
        if result.passed {
            say("every state was as recorded")
            return
        }
        var text = style.error("differs") + " at " + (result.failures.first ?? "") + "\n"
        for line in result.failures.dropFirst() { text += line + "\n" }
        Terminal.write(text, to: STDOUT_FILENO)
        exitProcess(ExitStatus.failure.rawValue)
    }

    /// A step as `fusion run` shows it: the input as typed, the clock move, the goto.
    static func describe(_ step: Scenario.Step) -> String {
        switch step.action {
        case .send(let input): return InputSyntax.display(input) + (step.error.map { " (refused: \($0))" } ?? "")
        case .advance(let seconds):
            let shown = Scenario.Step.nanoseconds(ofSeconds: seconds).map(SessionRecorder.secondsText) ?? JSONValue.double(seconds).jsonText
            return "⏱ +\(shown) s"
        case .goto(let version): return "↩ back to v\(version)"
        default: return step.label
        }
    }
}
