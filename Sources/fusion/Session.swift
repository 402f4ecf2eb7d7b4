import FusionHost
import FusionScenario
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The REPL of `fusion run`: one instance, inputs typed line by line, the state after
/// each, and the changes effects make later, printed as they arrive.
final class Session: Sendable {
    static let commands = [":state", ":diff", ":history", ":back", ":goto", ":advance", ":help", ":quit"]

    let library: HostedLibrary
    let feature: Manifest.Feature
    let instance: HostedInstance
    /// Everything that changes the instance goes through it when the session is recorded.
    let recorder: SessionRecorder?
    /// And the crash journal, when there is one (the recorder goes through it).
    let journal: JournaledInstance?
    /// What inputs and returns in time go through: the journal, the recorder or the
    /// instance itself, chosen once here.
    let driver: any SessionDriver
    let style: Style
    /// Line editing when both ends are a terminal; plain lines otherwise.
    let editor: LineEditor?
    private let plainOutput = Mutex(())
    /// stdin's lines when no line editor reads them.
    private let pipedLines = Mutex(StdinLines())
    /// The thread reading input. A change reported on it comes from the input being
    /// sent; a change reported on any other thread comes from an effect.
    let inputThread: pthread_t

    struct Progress {
        /// The latest version printed, so a change is printed once.
        var shownVersion: UInt64
        var shownState: JSONValue?
        var lastInput: LastInput?
    }

    struct LastInput {
        var text: String
        var before: InstanceState
        var after: InstanceState
    }

    let progress: Mutex<Progress>

    init(
        library: HostedLibrary, feature: Manifest.Feature, instance: HostedInstance, recorder: SessionRecorder? = nil,
        journal: JournaledInstance? = nil
    ) {
        self.library = library
        self.feature = feature
        self.instance = instance
        self.recorder = recorder
        self.journal = journal
        if let recorder {
            driver = recorder  // through the journal first, when there is one too
        } else if let journal {
            driver = journal
        } else {
            driver = instance
        }
        style = Style.for(descriptor: STDOUT_FILENO)
        let interactive = Terminal.isTerminal(STDIN_FILENO) && Terminal.isTerminal(STDOUT_FILENO)
        editor =
            interactive
            ? LineEditor(completer: InputCompletion.completer(for: feature, commands: Session.commands)) : nil
        inputThread = pthread_self()
        progress = Mutex(Progress(shownVersion: 0, shownState: nil, lastInput: nil))
    }

    func run() {
        let rawMode = RawMode()
        if editor != nil && !rawMode.enter() {
            show(style.dim("(the terminal refused raw mode; line editing is off)"))
        }
        defer { rawMode.leave() }

        if editor != nil {
            let title = style.prompt(feature.name) + (feature.summary.isEmpty ? "" : " — \(feature.summary)")
            show(title)
            show(
                style.dim(
                    "\(library.summary.libraryName) \(library.summary.libraryVersion). Type an input (Tab completes, ↑ recalls), :help for help, :quit to leave."
                ))
            if let recorder { show(style.dim("Recording to \(recorder.path); replay it with: fusion replay \(recorder.path)")) }
        }
        if let journal {
            // Said even without a terminal: a script resuming a session should know.
            if let resumed = journal.resumed {
                if let warning = resumed.warning { showWarning("journal \(journal.path): \(warning)") }
                show(
                    style.dim(
                        "Resumed from the journal \(journal.path): \(resumed.records) record\(resumed.records == 1 ? "" : "s") replayed."))
            } else if editor != nil {
                show(style.dim("Journaling to \(journal.path): after a crash, the same command resumes the session."))
            }
        }
        do throws(FusionHostError) {
            let state = try instance.state()
            present(state, label: style.version("v\(state.version)"), previous: nil)
            try instance.subscribe { [weak self] version in self?.changed(version) }
        } catch {
            showError(error.description)
        }

        while let line = readLine() {
            if !handle(line) { break }
        }
    }

    func readLine() -> String? {
        guard let editor else {
            while let bytes = pipedLines.withLock({ $0.next() }) {
                if let line = String(validating: bytes, as: UTF8.self) { return line }
                showError("a line that is not UTF-8 text was not read (FK_ERR_INVALID_UTF8); nothing was sent")
            }
            return nil
        }
        let plainPrompt = "\(feature.name)> "
        switch editor.readLine(prompt: style.prompt(feature.name) + "> ", promptWidth: DisplayWidth.of(plainPrompt)) {
        case .line(let line): return line
        case .end: return nil
        }
    }

    // MARK: Output

    func show(_ text: String) {
        if let editor {
            editor.printAbove(text)
        } else {
            plainOutput.withLock { _ in Terminal.write(text + "\n") }
        }
    }

    /// Errors and warnings go to stderr when the output is not a terminal, so a
    /// transcript piped to a file keeps only states.
    func showError(_ message: String) { showProblem("error:", message) }

    func showWarning(_ message: String) { showProblem("warning:", message) }

    func showProblem(_ label: String, _ message: String) {
        if let editor {
            editor.printAbove(style.error(label) + " " + message)
        } else {
            plainOutput.withLock { _ in
                Terminal.write(Style.for(descriptor: STDERR_FILENO).error(label) + " " + message + "\n", to: STDERR_FILENO)
            }
        }
    }

    var width: Int? { editor == nil ? nil : Terminal.columns() }

    /// Prints a state after `label`, with the fields that changed since `previous` standing out.
    func present(_ state: InstanceState, label: String, previous: JSONValue?) {
        guard let value = try? state.value() else {
            show(label + " " + state.json)
            return
        }
        let changed = previous.map { FieldChanges.changedKeys(from: $0, to: value) } ?? []
        let labelWidth = DisplayWidth.of(label.strippingANSI) + 1
        show(label + " " + Rendering.state(value, style: style, width: width.map { $0 - labelWidth }, changed: changed))
        progress.withLock { progress in
            if state.version >= progress.shownVersion {
                progress.shownVersion = state.version
                progress.shownState = value
            }
        }
    }

    /// A change of the instance, told by its subscription.
    func changed(_ version: UInt64) {
        // The input's own changes are printed once send returns.
        guard pthread_equal(pthread_self(), inputThread) == 0 else { return }
        guard let state = try? instance.state() else { return }
        let previous: JSONValue?? = progress.withLock { progress in
            state.version > progress.shownVersion ? .some(progress.shownState) : .none
        }
        guard let previous else { return }  // already printed
        present(state, label: style.effect("⟳ v\(state.version)") + style.dim(" (from an effect)"), previous: previous)
    }
}
