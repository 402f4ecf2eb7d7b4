import FusionKit

/// A feature that misbehaves on purpose, for the sandbox's tests (Tests/sandbox): built
/// to WebAssembly only, from this file and the registration beside it. Each input but
/// `increase` does what a plugin must never be able to do to its host.
///
/// | Input    | What it does                                          |
/// |----------|-------------------------------------------------------|
/// | increase | value + 1                                             |
/// | trap     | reads past the end of an array: a trap                |
/// | spin     | loops for ever                                        |
/// | hog      | allocates a MiB at a time, for ever                   |
/// | deep     | recurses without end: the interpreter's stack runs out|
public struct Faulty: Feature {
    public static let name = "faulty"
    public static let summary = "Counts, and traps, loops or allocates without end on demand (the sandbox's test plugin)."

    @JSONCoded
    public enum Input: JSONCoded, Sendable {
        case increase
        case trap
        case spin
        case hog
        case deep
    }

    public enum Action: Sendable {
        case increase
        case trap
        case spin
        case hog
        case deep
    }

    @JSONCoded
    public struct State: JSONCoded, Equatable, Sendable {
        public var value = 0

        public init(value: Int = 0) { self.value = value }
    }

    public init(environment: Environment) {}

    public var initialState: State { State() }

    public func transform(_ input: Input, state: State) -> [Action] {
        switch input {
        case .increase: return [.increase]
        case .trap: return [.trap]
        case .spin: return [.spin]
        case .hog: return [.hog]
        case .deep: return [.deep]
        }
    }

    public func perform(_ action: Action, state: inout State) -> Effect<Action> {
        switch action {
        case .increase:
            state.value += 1
        case .trap:
            state.value += 1  // half done when it traps: the host must not keep this
            let three = [1, 2, 3]
            state.value += three[state.value + 5]
        case .spin:
            var x = state.value
            while x != -1 { x = (x &* 31 &+ 7) & 0xffff }
            state.value = x
        case .hog:
            var chunks: [[UInt8]] = []
            var total = 0
            while total >= 0 {
                chunks.append([UInt8](repeating: UInt8(truncatingIfNeeded: chunks.count), count: 1 << 20))
                total += Int(chunks[chunks.count - 1][chunks.count % 1000])
            }
            state.value = total
        case .deep:
            state.value = Self.depth(state.value + 1)
        }
        return .none
    }

    /// Recursion the optimizer cannot turn into a loop: each level keeps work after the call.
    static func depth(_ n: Int) -> Int {
        n == -1 ? 0 : 1 &+ depth(n &+ 1) &* 3
    }
}
