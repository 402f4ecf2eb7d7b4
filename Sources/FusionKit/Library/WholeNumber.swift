extension JSONValue {
    /// A whole number from 0 to 2^63 - 1, in any of the ways JSON writes one: `100`,
    /// `100.0` and `1e2` are one number to RFC 8259, and every option that takes a count
    /// or a version takes all three alike (once only `"seed"` took `1e2`). Nil for anything
    /// else: a fraction, a negative number, or one past 2^63 - 1, which a reader may already
    /// have rounded.
    ///
    /// Computed in 64 bits, not through `Int`: in the WebAssembly module `Int` has 32, and a
    /// seed drawn below 2^53, read there as a double, trapped the module (`Int(d)`).
    var unsignedWhole: UInt64? {
        switch self {
        case .integer(let n) where n >= 0: return UInt64(n)
        case .double(let d) where d >= 0 && d < 9_223_372_036_854_775_808 && d == d.rounded(): return UInt64(d)
        default: return nil
        }
    }
}
