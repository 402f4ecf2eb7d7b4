extension Feature {
    /// The order every instance applies actions in, native or WebAssembly: each action
    /// performed on `state` in turn, its effect started by `start`, and the actions that
    /// effect sends at once (`Effect.send`) performed right after it, before the rest.
    @inlinable
    func performInOrder(_ actions: [Action], on state: inout State, starting start: (Effect<Action>) -> [Action]) {
        var queue = actions
        var index = 0
        while index < queue.count {
            let effect = perform(queue[index], state: &state)
            index += 1
            if effect.work.isEmpty { continue }
            let followUps = start(effect)
            if !followUps.isEmpty { queue.insert(contentsOf: followUps, at: index) }
        }
    }
}
