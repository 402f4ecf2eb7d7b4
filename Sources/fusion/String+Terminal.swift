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
