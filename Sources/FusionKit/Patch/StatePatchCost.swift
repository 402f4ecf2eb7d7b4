/// When a patch would cost more than the state it describes, so that `fk_state_patch`
/// answers with the whole state instead (`StatePatch.json`).
///
/// Bytes are known after the diff: a patch never has as many bytes as the whole state.
/// Time is decided before it, from the size the state's JSON had the last time it was
/// written: a diff costs a fixed amount (the plan's lookup, the walk of every field, the
/// answer's writer) before it finds anything, while a small state is written by its plan
/// for little more than a copy of its bytes. Below `wholeBelow` bytes the whole state is
/// the cheaper answer (fusion-bench's patch rows, docs/performance.md, time both sides
/// from 10 networks, about three times this size, up).
enum StatePatchCost {
    static let wholeBelow = 1024

    static func wholeIsCheaper(stateBytes: Int) -> Bool { stateBytes < wholeBelow }
}
