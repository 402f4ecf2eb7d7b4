extension JSONValue {
    /// A whole number from 0 to 2^63 - 1, in any of the ways JSON writes one: `100`,
    /// `100.0` and `1e2` are one number to RFC 8259, and every option that takes a count
    /// or a version takes all three alike (once only `"seed"` took `1e2`). Nil for anything
    /// else: a fraction, a negative number, or one past 2^63 - 1, which a reader may already
    /// have rounded.
    var unsignedWhole: UInt64? { wholeValue.flatMap { $0 >= 0 ? UInt64($0) : nil } }
}
