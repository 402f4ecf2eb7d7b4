import ArgumentParser
import FusionHost
import FusionScenario

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fusion run [LIB] FEATURE`: an interactive session with one instance.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a feature interactively: type inputs, see the state after each.",
        usage: """
            fusion run [LIB] FEATURE [--state FILE] [--seed N] [--clock manual|system] [--settings JSON]
                                     [--record FILE] [--journal FILE]
            """,
        discussion: """
            \(Fusion.inputHelp)

            After each input the new state is printed with its version; fields that \
            changed stand out. Changes made later by the feature's effects (a timer, a \
            request) are printed when they happen, marked "⟳ vN (from an effect)". A \
            refused input prints the library's explanation and changes nothing.

            Commands: :state (the whole state), :diff (what the last input changed, field \
            by field), :history (the versions kept, with the input that made each), \
            :back [N] (return to the state N versions back, 1 by default), :goto VERSION \
            (return to that version's state; the next input branches from there), \
            :advance SECONDS (move a manual clock), :help, :quit (or Ctrl-D). The last \
            \(Run.historyLimit) versions are kept.

            --seed N, --clock manual|system and --settings JSON are the instance's creation \
            options (as fk_create_with_options takes them): the random source's seed, the \
            clock effects wait on (a manual one moves only when told, with :advance), and \
            the feature's settings as a JSON object.

            --record FILE saves the session as a scenario (docs/scenarios.md) as it goes: \
            the seed, each input, each goto and each move of the clock, with the state \
            after each; `fusion replay FILE` runs it again and stops at the first state \
            that differs. The session runs on a clock the recorder moves in real time, so \
            that effects that wait (a timer) replay exactly.

            --journal FILE makes the session crash-safe: each input, goto and move of the \
            clock is appended to FILE and flushed to disk before it is applied. Run the \
            same command again after a crash (or a kill -9) and the session resumes with \
            the same state and version; a record torn by the crash is dropped with a \
            warning. The journal is kept when the session ends, so it can be resumed later; \
            delete it to start afresh. --state only sets where a new journal starts. With \
            --record as well, every change is journaled, then recorded (one clock for both); \
            a journal that holds a session already is resumed without --record.

            In a terminal: left/right, Home/End, backspace and the usual Ctrl keys edit \
            the line; up/down walk the history; Tab completes input names and field names. \
            When stdin is not a terminal, inputs are read one per line, without prompts. \
            Colour is used when stdout is a terminal and NO_COLOR is unset.

            \(Fusion.libraryHelp)

            \(ExitStatus.pointer)
            """)

    // ArgumentParser's declarations: each command states its own options, in one shape.
    @Argument(help: ArgumentHelp("The library (optional), then the feature.", valueName: "lib-or-feature"))
    var words: [String] = []

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "Start from the state in this file, if it exists, and save the state to it when the session ends.", valueName: "file"))
    var stateFile: String?

    @Option(
        name: .customLong("seed"),
        help: ArgumentHelp("Seed the instance's random source, so that it draws the same numbers.", valueName: "n"))
    var seed: UInt64?

    @Option(
        name: .customLong("clock"),
        help: ArgumentHelp("The clock effects wait on: system (real time, the default) or manual (moved by :advance).", valueName: "clock"))
    var clock: String?

    @Option(
        name: .customLong("settings"),
        help: ArgumentHelp("The feature's settings, a JSON object, e.g. '{\"liveScan\":false}'.", valueName: "json"))
    var settings: String?

    @Option(
        name: .customLong("record"),
        help: ArgumentHelp("Save the session as a scenario file that `fusion replay` runs again.", valueName: "file"))
    var recordFile: String?

    @Option(
        name: .customLong("journal"),
        help: ArgumentHelp(
            "Journal the session to this file, each input on disk before it is applied; if the file holds a session (one cut short by a crash), resume it.",
            valueName: "file"))
    var journalFile: String?

    /// How many versions a session keeps for :history, :back and :goto.
    static let historyLimit = 1000

    func validate() throws {
        let rest = LibraryChoice.split(words).rest
        if rest.isEmpty { throw ValidationError("missing FEATURE") }
        if rest.count > 1 { throw ValidationError("run takes one FEATURE; send inputs with `fusion send`, or type them in the session") }
        if let clock, clock != "manual", clock != "system" { throw ValidationError("--clock is manual or system, not \"\(clock)\"") }
        if let seed, seed > UInt64(Int.max) { throw ValidationError("--seed is at most \(Int.max)") }
        _ = try settingsValue()
    }

    /// --settings as a JSON object.
    func settingsValue() throws(ValidationError) -> JSONValue? {
        guard let settings else { return nil }
        guard let value = try? JSONParser.parse(settings) else {
            throw ValidationError("--settings is a JSON object, e.g. '{\"liveScan\":false}'; \(settings) is not JSON")
        }
        guard case .object = value else { throw ValidationError("--settings is a JSON object, not \(value.jsonText)") }
        return value
    }

    /// The creation options --seed, --clock and --settings ask for, in that order.
    func requestedOptions() throws(ValidationError) -> [JSONMember] {
        var members: [JSONMember] = []
        if let seed { members.append(JSONMember("seed", .integer(Int(seed)))) }
        if let clock { members.append(JSONMember("clock", .string(clock))) }
        if let settings = try settingsValue() { members.append(JSONMember("settings", settings)) }
        return members
    }

    @OptionGroup(title: "Sandboxed plugins")
    var plugin: PluginLimitOptions

    func run() throws {
        let (paths, rest) = LibraryChoice.split(words)
        guard let featureName = rest.first else { throw ValidationError("missing FEATURE") }
        let (library, feature) = try LibraryChoice.load(paths, limits: plugin.limits).feature(named: featureName)
        let saved = try stateFile.flatMap { (file) throws(CLIError) in try StateFile.load(file, feature: feature.name) }
        let withOptions = library.exports("fk_create_with_options")
        var journalInfo = stat()
        if let journalFile, recordFile != nil, stat(journalFile, &journalInfo) == 0, journalInfo.st_size > 0 {
            // A recording replays from the start, which a resumed journal's recording would lack.
            throw CLIError(
                .usage,
                "--record starts a new session, and \(journalFile) holds one already: resume it without --record, or delete it to start afresh"
            )
        }
        if (recordFile != nil || journalFile != nil) && !withOptions {
            throw CLIError(
                .library,
                "\(library.path) is older than fk_create_with_options, which recording and journaling need (for the seed and the clock)")
        }
        let requested = try requestedOptions()
        if !requested.isEmpty && !withOptions {
            throw CLIError(
                .library, "\(library.path) is older than fk_create_with_options, which --seed, --clock and --settings need")
        }
        var options = try StateFile.options(for: saved, from: stateFile, in: library, feature: feature) + requested
        if library.exports("fk_history") { options.append(JSONMember("history", .integer(Run.historyLimit))) }
        var realTime = false
        var creationOptions = JSONValue.object(options)
        var journal: JournaledInstance?
        let instance: HostedInstance
        if let journalFile {
            do throws(JournalError) {
                // Recorded too: the recorder moves the clock (through the journal), not the
                // journal; and no checkpoint restarts effects, which a recording cannot replay.
                journal = try JournaledInstance(
                    path: journalFile, library: library, feature: feature.name, options: creationOptions,
                    startedBy: "fusion run", drivesClock: recordFile == nil,
                    checkpointEvery: recordFile == nil ? JournaledInstance.defaultCheckpointEvery : 0)
            } catch {
                throw CLIError(.journal, error.description)
            }
            instance = journal!.instance
            if let journal, recordFile != nil { (creationOptions, realTime) = (journal.options, journal.realTime) }
        } else {
            if recordFile != nil { (creationOptions, realTime) = SessionRecorder.recordingOptions(creationOptions) }
            instance = try StateFile.create(
                saved, from: stateFile, in: library, feature: feature,
                options: withOptions ? creationOptions : nil)
        }
        var recorder: SessionRecorder?
        if let recordFile {
            do throws(ScenarioFileError) {
                recorder = try SessionRecorder(
                    path: recordFile, feature: featureName, options: creationOptions, instance: instance,
                    realTime: realTime, recordedBy: "fusion run", journal: journal)
            } catch {
                throw CLIError(.failure, "cannot record the session: \(error)")
            }
        }
        let session = Session(library: library, feature: feature, instance: instance, recorder: recorder, journal: journal)
        session.run()
        recorder?.stop()
        journal?.stop()
        if let failure = recorder?.failure { Fusion.report(CLIError(.failure, "the recording is incomplete: \(failure)")) }
        let final = try? instance.state()
        try? instance.destroy()
        if let stateFile, let final { try StateFile.save(stateFile, feature: feature, state: final) }
    }
}
