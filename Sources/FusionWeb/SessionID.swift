/// Session ids: 128 bits from the system's secure random source (getrandom on Linux,
/// which `SystemRandomNumberGenerator` uses), as 32 lowercase hex digits. Knowing one
/// id tells nothing about another, so a page can only reach its own session.
public enum SessionID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next() as UInt64) + hex(generator.next() as UInt64)
    }

    /// Whether a client-supplied id has the shape of one we issue (anything else is
    /// simply unknown, never looked up).
    static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// How logs name a session: its first 8 hex digits. Enough to follow one session
    /// through a log; the other 96 bits keep a log's reader from rejoining it.
    static func logTag(_ id: String) -> String { "\(id.prefix(8))…" }

    /// `text` with every session id in it (32 hex digits in a row: a journal's folder,
    /// say) cut to its log tag, for warnings that reach a log.
    public static func redacted(_ text: String) -> String {
        var result = ""
        var run = ""
        func flush() {
            result += run.count >= 32 ? String(run.prefix(8)) + "…" : run
            run = ""
        }
        for character in text {
            if character.isHexDigit && (character.isNumber || character.isLowercase) {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
