import FusionHost

/// The lines a person types: inputs, and the `:` commands.
extension Session {
    // MARK: Input

    /// Handles a line; false ends the session.
    func handle(_ line: String) -> Bool {
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
            try driver.sendInput(json)
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

    func command(_ text: String) -> Bool {
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
        case ":advance":
            advance(text)
        case ":help":
            show(help())
        default:
            showError("unknown command \(text); commands: \(Session.commands.joined(separator: " "))")
        }
        return true
    }

    /// `:advance SECONDS`: moves the instance's manual clock, so that effects waiting on
    /// it run (a session started with `--clock manual`, or `--record`'s manual clock).
    func advance(_ text: String) {
        let words = text.split(separator: " ")
        guard words.count == 2, let seconds = Double(words[1]), seconds.isFinite, seconds >= 0, seconds <= 1e9 else {
            showError(":advance takes the seconds to move the clock by, from 0 to 1e9 (about 31 years), e.g. :advance 1.5")
            return
        }
        do {
            let before = try instance.state()
            try driver.moveClock(byNanoseconds: UInt64((seconds * 1e9).rounded()))
            let after = try instance.state()
            // The effects the move woke print their own changes ("from an effect").
            if after.version > progress.withLock({ $0.shownVersion }) {
                let label = style.version("v\(after.version)") + style.dim(" (after \(words[1]) s)")
                present(after, label: label, previous: try? before.value())
            } else {
                show(style.dim("the clock moved \(words[1]) s; ") + style.version("v\(after.version)"))
            }
        } catch {
            showError("\(error)")
        }
    }

    func showDiff() {
        guard let last = progress.withLock({ $0.lastInput }) else {
            show(style.dim("no input yet"))
            return
        }
        guard let before = try? last.before.value(), let after = try? last.after.value() else {
            showError("a state is not JSON")
            return
        }
        var lines: [String] = []
        let changes = FieldChanges.changes(from: before, to: after)
        let heading = style.bold(last.text)
        if changes.isEmpty {
            lines.append("\(heading) changed nothing (v\(last.after.version))")
        } else {
            lines.append("\(heading) changed (v\(last.before.version) → v\(last.after.version)):")
            lines += FieldChanges.describe(changes, style: style)
        }
        if let now = try? instance.state(), now.version > last.after.version, let current = try? now.value() {
            lines.append("then effects changed (v\(last.after.version) → v\(now.version)):")
            lines += FieldChanges.describe(FieldChanges.changes(from: after, to: current), style: style)
        }
        show(lines.joined(separator: "\n"))
    }

    func help() -> String {
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
            "clock: :advance SECONDS (moves a manual clock; effects waiting on it run)"
        ]
        return lines.joined(separator: "\n")
    }
}
