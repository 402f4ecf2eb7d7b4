#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ANSI colour, used only when the output is a terminal and NO_COLOR is not set
/// (https://no-color.org), so that piped output and files stay plain text.
struct Style: Sendable {
    let enabled: Bool

    static let plain = Style(enabled: false)

    /// The style for a file descriptor (1 for stdout, 2 for stderr).
    static func `for`(descriptor: Int32) -> Style {
        guard isatty(descriptor) == 1 else { return .plain }
        if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return .plain }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return .plain }
        return Style(enabled: true)
    }

    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    // One line per role, each a colour: a table of the palette, alike on purpose.
    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }
    func key(_ text: String) -> String { paint(text, "36") }
    func changedKey(_ text: String) -> String { paint(text, "1;4;36") }
    func string(_ text: String) -> String { paint(text, "32") }
    func number(_ text: String) -> String { paint(text, "33") }
    func literal(_ text: String) -> String { paint(text, "35") }
    func error(_ text: String) -> String { paint(text, "1;31") }
    func effect(_ text: String) -> String { paint(text, "1;35") }
    func version(_ text: String) -> String { paint(text, "2;37") }
    func prompt(_ text: String) -> String { paint(text, "1;36") }
    func added(_ text: String) -> String { paint(text, "32") }
    func removed(_ text: String) -> String { paint(text, "31") }
}
