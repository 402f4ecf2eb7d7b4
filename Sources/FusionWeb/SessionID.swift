/// Session ids: 128 bits from the system's secure random source (getrandom on Linux,
/// which `SystemRandomNumberGenerator` uses), as 32 lowercase hex digits. Knowing one
/// id tells nothing about another, so a page can only reach its own session.
enum SessionID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next() as UInt64) + hex(generator.next() as UInt64)
    }

    /// Whether a client-supplied id has the shape of one we issue (anything else is
    /// simply unknown, never looked up).
    static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
