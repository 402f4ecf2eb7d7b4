import FusionKit
import Testing

@testable import FusionExamples

#if canImport(Glibc)
    import Glibc
#endif

/// `Store.mallocState`, what fk_state hands out: the same bytes as `encodedState` with a
/// NUL after them, whether the state grew past the room the last length left or not.
@Suite struct MallocStateTests {
    /// The state's text and version as `mallocState` gives them, the memory freed.
    func read(_ store: Store<Answer>) throws -> (text: [UInt8], version: UInt64)? {
        guard let (memory, length, version) = try store.mallocState() else { return nil }
        defer { free(memory) }
        #expect(memory.load(fromByteOffset: length, as: UInt8.self) == 0, "a NUL after the text")
        return (Array(UnsafeRawBufferPointer(start: memory, count: length)), version)
    }

    @Test func aStateThatGrewFarPastItsLastLengthIsWrittenWhole() throws {
        let store = Store<Answer>()
        // Before the state was ever written its size is unknown: the caller copies instead.
        #expect(try read(store) == nil)
        _ = try store.encodedState()
        let small = try #require(try read(store))
        #expect(small.text == (try store.encodedState()).bytes)
        // Far more than the slack past the last length: written again, at its new size.
        let long = String(repeating: "blue ", count: 400)
        store.send(.answerChanged(text: long))
        let grown = try #require(try read(store))
        let expected = try store.encodedState()
        #expect(grown.text == expected.bytes && grown.version == expected.version)
        #expect(grown.text.count > small.text.count + 1_000)
        // And back to small: what the long text left is not read.
        store.send(.answerChanged(text: "blue"))
        let again = try #require(try read(store))
        #expect(again.text == (try store.encodedState()).bytes)
    }
}
