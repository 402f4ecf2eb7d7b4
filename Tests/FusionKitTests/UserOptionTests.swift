import Testing

@testable import FusionKit

/// The creation option "user": the signed-in user a host vouches for, which a feature
/// reads from its environment.
@Suite struct UserOptionTests {
    @Test func reachesTheEnvironment() throws {
        let options = try InstanceOptions(json: ["user": ["subject": "alice", "claims": ["name": "Alice Example"]]])
        let user = try #require(options.makeEnvironment().user)
        #expect(user.subject == "alice")
        #expect(user.displayName == "Alice Example")
        #expect(user.claim("email") == nil)
        #expect(try InstanceOptions(json: ["user": ["subject": "bob"]]).user?.displayName == "bob")
        #expect(try InstanceOptions(json: [:]).makeEnvironment().user == nil)
    }

    @Test func isCheckedLikeEveryOption() {
        for bad: JSONValue in [
            "alice", ["subject": ""], ["claims": [:]], ["subject": 7], ["subject": "a", "claims": "x"], ["subject": "a", "role": "admin"]
        ] {
            #expect(throws: FusionError.self) { try InstanceOptions(json: ["user": bad]) }
        }
    }
}
