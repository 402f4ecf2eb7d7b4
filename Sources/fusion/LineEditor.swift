import Synchronization

/// What tab can complete at the cursor: the word that starts at `wordStart` (a
/// character offset) and the candidates for it, each with what follows a full match
/// (" " after a case name that takes fields, "=" after a field name).
struct Completion: Sendable {
    struct Candidate: Sendable, Equatable {
        var text: String
        var suffix: String
    }

    var wordStart: Int
    var candidates: [Candidate]
}

/// A single-line editor over a terminal in raw mode, written by hand to keep the
/// client free of dependencies beyond swift-argument-parser.
///
/// Keys: left/right (Ctrl-B/F), Home/End (Ctrl-A/E), Alt-B/F or Ctrl-left/right by
/// word, backspace, Delete, Ctrl-K/U/W to kill to the end, to the start, a word back,
/// up/down (Ctrl-P/N) through the history, tab to complete, Ctrl-L to clear the
/// screen, Ctrl-C to drop the line, Ctrl-D on an empty line to end.
/// A line wider than the terminal scrolls sideways, keeping the cursor in view.
///
/// Other threads may print while a line is being edited (`printAbove`): the line is
/// cleared, the text printed, and the line drawn again below it.
final class LineEditor: Sendable {
    typealias Completer = @Sendable (_ beforeCursor: String) -> Completion

    enum Result: Equatable {
        case line(String)
        case end
    }

    private enum Key {
        case insert(Character)
        case enter, tab, backspace, delete, left, right, home, end, up, down
        case wordLeft, wordRight, killToEnd, killToStart, killWordBack, clearScreen, cancel, endOfInput
        case ignore
    }

    private struct State {
        var prompt = ""
        var promptWidth = 0
        var buffer: [Character] = []
        var cursor = 0
        var scroll = 0
        var active = false
        var history: [String] = []
        var historyIndex = 0
        var stash: [Character] = []
    }

    private let state = Mutex(State())
    private let completer: Completer

    init(completer: @escaping Completer) {
        self.completer = completer
    }

    /// Reads one line; the terminal must be in raw mode.
    func readLine(prompt: String, promptWidth: Int) -> Result {
        state.withLock { state in
            state.prompt = prompt
            state.promptWidth = promptWidth
            state.buffer = []
            state.cursor = 0
            state.scroll = 0
            state.active = true
            state.historyIndex = state.history.count
            redraw(&state)
        }
        while true {
            guard let byte = Terminal.readByte() else {
                state.withLock { $0.active = false }
                Terminal.write("\n")
                return .end
            }
            let key = decode(byte)
            if let result = state.withLock({ apply(key, to: &$0) }) { return result }
        }
    }

    /// Prints text (one or more lines) above the line being edited, or just prints it
    /// when no line is being edited. Safe from any thread.
    func printAbove(_ text: String) {
        state.withLock { state in
            guard state.active else {
                Terminal.write(text + "\n")
                return
            }
            Terminal.write("\r\u{1B}[K" + text + "\n")
            redraw(&state)
        }
    }

    // MARK: Keys

    private func decode(_ byte: UInt8) -> Key {
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x7F, 0x08: return .backspace
        case 0x01: return .home
        case 0x05: return .end
        case 0x02: return .left
        case 0x06: return .right
        case 0x10: return .up
        case 0x0E: return .down
        case 0x0B: return .killToEnd
        case 0x15: return .killToStart
        case 0x17: return .killWordBack
        case 0x0C: return .clearScreen
        case 0x03: return .cancel
        case 0x04: return .endOfInput
        case 0x1B: return escapeSequence()
        case 0x20..<0x7F: return .insert(Character(Unicode.Scalar(byte)))
        case 0xC0...0xF7: return utf8Character(lead: byte)
        default: return .ignore
        }
    }

    private func utf8Character(lead: UInt8) -> Key {
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        var bytes = [lead]
        for _ in 1..<length {
            guard let next = Terminal.readByte(), next & 0xC0 == 0x80 else { return .ignore }
            bytes.append(next)
        }
        guard let text = String(validating: bytes, as: UTF8.self), let character = text.first else { return .ignore }
        return .insert(character)
    }

    private func escapeSequence() -> Key {
        // A lone Escape key sends nothing after it.
        guard Terminal.byteReady(within: 30), let next = Terminal.readByte() else { return .ignore }
        switch next {
        case UInt8(ascii: "["), UInt8(ascii: "O"):
            var parameters = ""
            while let byte = Terminal.readByte() {
                if (0x40...0x7E).contains(byte) { return csi(final: byte, parameters: parameters) }
                parameters.append(Character(Unicode.Scalar(byte)))
                if parameters.count > 16 { return .ignore }
            }
            return .ignore
        case UInt8(ascii: "b"): return .wordLeft
        case UInt8(ascii: "f"): return .wordRight
        case 0x7F: return .killWordBack
        default: return .ignore
        }
    }

    private func csi(final: UInt8, parameters: String) -> Key {
        let modified = parameters.contains(";")  // e.g. 1;5C for Ctrl-right
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return modified ? .wordRight : .right
        case UInt8(ascii: "D"): return modified ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return .ignore
            }
        default: return .ignore
        }
    }

    /// Applies a key; a result ends the line.
    private func apply(_ key: Key, to state: inout State) -> Result? {
        switch key {
        case .insert(let character):
            state.buffer.insert(character, at: state.cursor)
            state.cursor += 1
        case .enter:
            let line = String(state.buffer)
            state.cursor = state.buffer.count
            redraw(&state)
            Terminal.write("\n")
            state.active = false
            if !line.trimmingWhitespace.isEmpty && state.history.last != line { state.history.append(line) }
            return .line(line)
        case .tab:
            complete(&state)
        case .backspace:
            guard state.cursor > 0 else { return nil }
            state.cursor -= 1
            state.buffer.remove(at: state.cursor)
        case .delete:
            guard state.cursor < state.buffer.count else { return nil }
            state.buffer.remove(at: state.cursor)
        case .left: state.cursor = max(0, state.cursor - 1)
        case .right: state.cursor = min(state.buffer.count, state.cursor + 1)
        case .home: state.cursor = 0
        case .end: state.cursor = state.buffer.count
        case .wordLeft: state.cursor = wordStart(before: state.cursor, in: state.buffer)
        case .wordRight:
            var position = state.cursor
            while position < state.buffer.count && state.buffer[position].isWhitespace { position += 1 }
            while position < state.buffer.count && !state.buffer[position].isWhitespace { position += 1 }
            state.cursor = position
        case .killToEnd: state.buffer.removeSubrange(state.cursor...)
        case .killToStart:
            state.buffer.removeSubrange(..<state.cursor)
            state.cursor = 0
        case .killWordBack:
            let start = wordStart(before: state.cursor, in: state.buffer)
            state.buffer.removeSubrange(start..<state.cursor)
            state.cursor = start
        case .up:
            guard state.historyIndex > 0 else { return nil }
            if state.historyIndex == state.history.count { state.stash = state.buffer }
            state.historyIndex -= 1
            state.buffer = Array(state.history[state.historyIndex])
            state.cursor = state.buffer.count
        case .down:
            guard state.historyIndex < state.history.count else { return nil }
            state.historyIndex += 1
            state.buffer = state.historyIndex == state.history.count ? state.stash : Array(state.history[state.historyIndex])
            state.cursor = state.buffer.count
        case .clearScreen:
            Terminal.write("\u{1B}[H\u{1B}[2J")
        case .cancel:
            state.cursor = state.buffer.count
            redraw(&state)
            Terminal.write("^C\n")
            state.buffer = []
            state.cursor = 0
            state.historyIndex = state.history.count
        case .endOfInput:
            if state.buffer.isEmpty {
                Terminal.write("\n")
                state.active = false
                return .end
            }
            guard state.cursor < state.buffer.count else { return nil }
            state.buffer.remove(at: state.cursor)
        case .ignore:
            return nil
        }
        redraw(&state)
        return nil
    }

    private func wordStart(before cursor: Int, in buffer: [Character]) -> Int {
        var position = cursor
        while position > 0 && buffer[position - 1].isWhitespace { position -= 1 }
        while position > 0 && !buffer[position - 1].isWhitespace { position -= 1 }
        return position
    }

    // MARK: Completion

    private func complete(_ state: inout State) {
        let completion = completer(String(state.buffer[..<state.cursor]))
        let start = min(max(0, completion.wordStart), state.cursor)
        let word = String(state.buffer[start..<state.cursor])
        let matches = completion.candidates.filter { $0.text.hasPrefix(word) }
        guard let first = matches.first else {
            Terminal.write("\u{07}")  // nothing to complete: the bell, as shells do
            return
        }
        if matches.count == 1 {
            replace(start..<state.cursor, with: first.text + first.suffix, in: &state)
            return
        }
        let common = matches.dropFirst().reduce(first.text) { prefix, candidate in
            String(zip(prefix, candidate.text).prefix { $0 == $1 }.map(\.0))
        }
        if common.count > word.count {
            replace(start..<state.cursor, with: common, in: &state)
        } else {
            // Nothing more in common: show the choices above the line.
            Terminal.write("\r\u{1B}[K" + matches.map(\.text).joined(separator: "  ") + "\n")
        }
    }

    private func replace(_ range: Range<Int>, with text: String, in state: inout State) {
        state.buffer.replaceSubrange(range, with: Array(text))
        state.cursor = range.lowerBound + text.count
    }

    // MARK: Drawing

    /// Draws prompt and line, scrolled sideways so the cursor is on screen.
    private func redraw(_ state: inout State) {
        let columns = Terminal.columns() ?? 80
        let room = max(8, columns - state.promptWidth - 1)
        if state.cursor < state.scroll { state.scroll = state.cursor }
        while state.scroll < state.cursor && width(state.buffer[state.scroll..<state.cursor]) >= room {
            state.scroll += 1
        }
        var visible = ""
        var used = 0
        for character in state.buffer[state.scroll...] {
            let characterWidth = DisplayWidth.of(character)
            if used + characterWidth > room { break }
            visible.append(character)
            used += characterWidth
        }
        let cursorColumn = state.promptWidth + width(state.buffer[state.scroll..<state.cursor])
        var out = "\r" + state.prompt + visible + "\u{1B}[K\r"
        if cursorColumn > 0 { out += "\u{1B}[\(cursorColumn)C" }
        Terminal.write(out)
    }

    private func width(_ characters: ArraySlice<Character>) -> Int {
        characters.reduce(0) { $0 + DisplayWidth.of($1) }
    }
}
