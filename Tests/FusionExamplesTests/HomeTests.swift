import FusionKit
import Testing

@testable import FusionExamples

/// Seed 001's Home screen, as its Interactor reads.
@Suite struct HomeTests {
    @Test func startsWithHelloWorld() {
        #expect(Store<Home>().state == Home.State(title: "Hello", desc: "World"))
    }

    @Test(arguments: [
        (Home.Input.viewDidLoad, "ViewDidLoad Action", "Number "),
        (.tap1, "Tap1 Action", "Tap1 Number "),
        (.tap2, "Tap2 Action", "Tap2 Number ")
    ])
    func inputsSetTitleAndNumberedDescription(_ input: Home.Input, _ title: String, _ prefix: String) throws {
        let store = Store<Home>()
        store.send(input)
        #expect(store.state.title == title)
        #expect(store.state.desc.hasPrefix(prefix))
        let number = try #require(Int(store.state.desc.dropFirst(prefix.count)))
        #expect((0...5).contains(number))
    }

    @Test func theSeedPinsTheNumbers() {
        func draws(seed: UInt64) -> [String] {
            let store = Store<Home>(environment: Environment(random: RandomSource(seed: seed)))
            return (0..<8).map { _ in
                store.send(.tap1)
                return store.state.desc
            }
        }
        #expect(draws(seed: 42) == draws(seed: 42))
        let spread = Set((0..<20).flatMap { draws(seed: UInt64($0)) })
        #expect(spread.count == 6)  // all of 0...5 appear: the source really draws
    }

    @Test func aViewLoadsOncePerInstance() {
        let store = Store<Home>(environment: Environment(random: RandomSource(seed: 7)))
        store.send(.viewDidLoad)
        let loaded = store.state
        #expect(loaded.isViewLoaded && loaded.title == "ViewDidLoad Action")
        let version = store.version
        store.send(.viewDidLoad)  // a page reloaded onto the same instance
        #expect(store.state == loaded)
        #expect(store.version == version)  // nothing was applied: no change for anyone to hear
        store.send(.tap1)
        store.send(.viewDidLoad)
        #expect(store.state.title == "Tap1 Action")
    }
}
