import FusionHost

/// :history, :back and :goto.
extension Session {
    // MARK: Time travel

    func showHistory() {
        let history: InstanceHistory
        do throws(FusionHostError) { history = try instance.history() } catch {
            showError(error.description)
            return
        }
        var lines = [
            "\(history.entries.count) version\(history.entries.count == 1 ? "" : "s") kept (at most \(history.limit)); :back N or :goto VERSION returns to one:"
        ]
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
    func travel(_ text: String) {
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
                    let kept =
                        earlier == 0
                        ? "no earlier version is kept"
                        : "only \(earlier) version\(earlier == 1 ? " back is" : "s back are") kept"
                    showError("\(kept); :history lists them")
                    return
                }
                target = history.entries[history.entries.count - 1 - steps].version
            }
            let before = try instance.state()
            try driver.travel(to: target)
            let after = try instance.state()
            progress.withLock { $0.lastInput = LastInput(text: text, before: before, after: after) }
            let label =
                style.version("v\(after.version)")
                + style.dim(after.version == before.version ? " (already there)" : " (the state of v\(target))")
            present(after, label: label, previous: try? before.value())
        } catch {
            showError("\(error)")
        }
    }
}
