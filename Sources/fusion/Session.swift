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
    static let commands = [":state", ":diff", ":history", ":back", ":goto", ":help", ":quit"]

    private let library: HostedLibrary
    private let feature: Manifest.Feature
    private let instance: HostedInstance
    /// Everything that changes the instance goes through it when the session is recorded.
    private let recorder: SessionRecorder?
    /// Or through the crash journal, when there is one (the two are not combined).
    private let journal: JournaledInstance?
    private let style: Style
    /// Line editing when both ends are a terminal; plain lines otherwise.
    private let editor: LineEditor?
    private let plainOutput = Mutex(())
    /// The thread reading input. A change reported on it comes from the input being
    /// sent; a change reported on any other thread comes from an effect.
    private let inputThread: pthread_t

    private struct Progress {
        /// The latest version printed, so a change is printed once.
        var shownVersion: UInt64
        var shownState: JSONValue?
        var lastInput: LastInput?
    }

    private struct LastInput {
        var text: String
        var before: InstanceState
        var after: InstanceState
    }

    private let progress: Mutex<Progress>

    init(library: HostedLibrary, feature: Manifest.Feature, instance: HostedInstance, recorder: SessionRecorder? = nil,
         journal: JournaledInstance? = nil) {
        self.library = library
        self.feature = feature
        self.instance = instance
        self.recorder = recorder
        self.journal = journal
        style = Style.for(descriptor: STDOUT_FILENO)
        let interactive = Terminal.isTerminal(STDIN_FILENO) && Terminal.isTerminal(STDOUT_FILENO)
        editor = interactive
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
            show(style.dim("\(library.summary.libraryName) \(library.summary.libraryVersion). Type an input (Tab completes, ↑ recalls), :help for help, :quit to leave."))
            if let recorder { show(style.dim("Recording to \(recorder.path); replay it with: fusion replay \(recorder.path)")) }
        }
        if let journal {
            // Said even without a terminal: a script resuming a session should know.
            if let resumed = journal.resumed {
                if let warning = resumed.warning { showWarning("journal \(journal.path): \(warning)") }
                show(style.dim("Resumed from the journal \(journal.path): \(resumed.records) record\(resumed.records == 1 ? "" : "s") replayed."))
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

    private func readLine() -> String? {
        guard let editor else { return Swift.readLine(strippingNewline: true) }
        let plainPrompt = "\(feature.name)> "
        switch editor.readLine(prompt: style.prompt(feature.name) + "> ", promptWidth: DisplayWidth.of(plainPrompt)) {
        case .line(let line): return line
        case .end: return nil
        }
    }

    // MARK: Output

    private func show(_ text: String) {
        if let editor {
            editor.printAbove(text)
        } else {
            plainOutput.withLock { _ in Terminal.write(text + "\n") }
        }
    }

    /// Errors and warnings go to stderr when the output is not a terminal, so a
    /// transcript piped to a file keeps only states.
    private func showError(_ message: String) { showProblem("error:", message) }

    private func showWarning(_ message: String) { showProblem("warning:", message) }

    private func showProblem(_ label: String, _ message: String) {
        if let editor {
            editor.printAbove(style.error(label) + " " + message)
        } else {
            plainOutput.withLock { _ in Terminal.write(Style.for(descriptor: STDERR_FILENO).error(label) + " " + message + "\n", to: STDERR_FILENO) }
        }
    }

    private var width: Int? { editor == nil ? nil : Terminal.columns() }

    /// Prints a state after `label`, with the fields that changed since `previous` standing out.
    private func present(_ state: InstanceState, label: String, previous: JSONValue?) {
        guard let value = try? state.value() else {
            show(label + " " + state.json)
            return
        }
        let changed = previous.map { StateDiff.changedKeys(from: $0, to: value) } ?? []
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
    private func changed(_ version: UInt64) {
        // The input's own changes are printed once send returns.
        guard pthread_equal(pthread_self(), inputThread) == 0 else { return }
        guard let state = try? instance.state() else { return }
        let previous: JSONValue?? = progress.withLock { progress in
            state.version > progress.shownVersion ? .some(progress.shownState) : .none
        }
        guard let previous else { return }  // already printed
        present(state, label: style.effect("⟳ v\(state.version)") + style.dim(" (from an effect)"), previous: previous)
    }

    // MARK: Input

    /// Handles a line; false ends the session.
    private func handle(_ line: String) -> Bool {
        let text = line.trimmingWhitespace
        if text.isEmpty { return true }
        if text.hasPrefix(":") { return command(text) }
        let json: String
        do throws(InputSyntax.SyntaxError) {
            json = try InputSyntax.json(for: try InputSyntax.parse(line: text), in: feature)
        } catch {
            showError("\(error.message); :help lists the inputs")
            return true
        }
        do {
            let before = try instance.state()
            if let journal {
                try journal.send(json)
            } else if let recorder {
                try recorder.send(json)
            } else {
                try instance.send(json)
            }
            let after = try instance.state()
            progress.withLock { $0.lastInput = LastInput(text: text, before: before, after: after) }
            let unchanged = after.version == before.version
            let label = style.version("v\(after.version)") + (unchanged ? style.dim(" (no change)") : "")
            present(after, label: label, previous: try? before.value())
        } catch {
            showError("\(error)")
        }
        return true
    }

    private func command(_ text: String) -> Bool {
        switch text.split(separator: " ").first.map(String.init) ?? text {
        case ":quit", ":q", ":exit":
            return false
        case ":state":
            do throws(FusionHostError) {
                let state = try instance.state()
                let value = (try? state.value()) ?? .string(state.json)
                show(style.version("v\(state.version)") + "\n" + Rendering.json(value, style: style, indent: 2))
            } catch {
                showError(error.description)
            }
        case ":diff":
            showDiff()
        case ":history":
            showHistory()
        case ":back", ":goto":
            travel(text)
        case ":help":
            show(help())
        default:
            showError("unknown command \(text); commands: \(Session.commands.joined(separator: " "))")
        }
        return true
    }

    private func showDiff() {
        guard let last = progress.withLock({ $0.lastInput }) else {
            show(style.dim("no input yet"))
            return
        }
        guard let before = try? last.before.value(), let after = try? last.after.value() else {
            showError("a state is not JSON")
            return
        }
        var lines: [String] = []
        let changes = StateDiff.changes(from: before, to: after)
        let heading = style.bold(last.text)
        if changes.isEmpty {
            lines.append("\(heading) changed nothing (v\(last.after.version))")
        } else {
            lines.append("\(heading) changed (v\(last.before.version) → v\(last.after.version)):")
            lines += StateDiff.describe(changes, style: style)
        }
        if let now = try? instance.state(), now.version > last.after.version, let current = try? now.value() {
            lines.append("then effects changed (v\(last.after.version) → v\(now.version)):")
            lines += StateDiff.describe(StateDiff.changes(from: after, to: current), style: style)
        }
        show(lines.joined(separator: "\n"))
    }

    // MARK: Time travel

    private func showHistory() {
        let history: InstanceHistory
        do throws(FusionHostError) { history = try instance.history() } catch {
            showError(error.description)
            return
        }
        var lines = ["\(history.entries.count) version\(history.entries.count == 1 ? "" : "s") kept (at most \(history.limit)); :back N or :goto VERSION returns to one:"]
        let width = String(history.version).count + 1
        for entry in history.entries {
            let current = entry.version == history.version
            let number = "v\(entry.version)".padding(to: width + 1)
            let mark = current ? style.prompt("→ ") : "  "
            lines.append(mark + (current ? style.version(number) : number) + " " + Session.describe(entry, style: style))
        }
        show(lines.joined(separator: "\n"))
    }

    static func describe(_ entry: InstanceHistory.Entry, style: Style) -> String {
        switch entry.cause {
        case "start": return style.dim("start")
        case "input": return entry.input.map { InputSyntax.display($0) } ?? "an input"
        case "effect": return style.effect("⟳ effect")
        case "response": return style.effect("⟳ host answer")
        case "goto": return style.dim("↩ back to v\(entry.restored.map(String.init) ?? "?")")
        default: return entry.cause
        }
    }

    /// :back [N] and :goto VERSION.
    private func travel(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        let target: UInt64
        do {
            let history = try instance.history()
            if words[0] == ":goto" {
                guard words.count == 2, let version = UInt64(words[1]) else {
                    showError(":goto takes a version: :goto 3 (see :history)")
                    return
                }
                target = version
            } else {
                guard words.count <= 2, let steps = words.count == 2 ? Int(words[1]) : 1, steps > 0 else {
                    showError(":back takes how many versions to go back: :back, :back 3")
                    return
                }
                guard steps < history.entries.count else {
                    let earlier = history.entries.count - 1
                    let kept = earlier == 0 ? "no earlier version is kept"
                        : "only \(earlier) version\(earlier == 1 ? " back is" : "s back are") kept"
                    showError("\(kept); :history lists them")
                    return
                }
                target = history.entries[history.entries.count - 1 - steps].version
            }
            let before = try instance.state()
            if let journal {
                try journal.goto(version: target)
            } else if let recorder {
                try recorder.goto(version: target)
            } else {
                _ = try instance.goto(version: target)
            }
            let after = try instance.state()
            progress.withLock { $0.lastInput = LastInput(text: text, before: before, after: after) }
            let label = style.version("v\(after.version)") + style.dim(after.version == before.version ? " (already there)" : " (the state of v\(target))")
            present(after, label: label, previous: try? before.value())
        } catch {
            showError("\(error)")
        }
    }

    private func help() -> String {
        var lines = ["inputs of \(style.prompt(feature.name)):"]
        for input in feature.inputs {
            let fields = input.fields.map { field in
                let text = "\(style.key(field.name))=<\(field.type)>"
                return field.required ? text : "[\(text)]"
            }
            lines.append("  " + ([style.bold(input.name)] + fields).joined(separator: " "))
        }
        lines += [
            "Type an input as `case field=value …` or as JSON ({\"case\":{…}}). A value is read as",
            "JSON when it parses, else as text; 'single quotes' always make text.",
            "commands: :state (the whole state)  :diff (what the last input changed)  :help  :quit",
            "time travel: :history (the versions kept)  :back [N] (N versions back)  :goto VERSION",
            "  (returning is a new version with the old state; the next input branches from there)",
        ]
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text without ANSI colour codes, to measure what the terminal shows.
    var strippingANSI: String {
        var out = ""
        var inEscape = false
        for character in self {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}

extension String {
    /// The text followed by spaces up to `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
