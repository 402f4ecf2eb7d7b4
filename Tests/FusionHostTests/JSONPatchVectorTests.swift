import FusionJSON
import RuleVectors
import Testing

/// Swift's JSON Patch (RuleVectors.JSONPatch, which the Swift tests apply the library's
/// patches with) against the shared vectors in Tests/vectors/json-patch, which the web,
/// Python and Java tests read too (docs/rules/json-patch.md).
@Suite struct JSONPatchVectorTests {
    @Test(arguments: try RuleVector.cases("json-patch", "apply"))
    func apply(_ vector: RuleVector) throws {
        let document = try #require(vector.value["doc"])
        let operations = try #require(vector.value["patch"]?.elements)
        let result = Result { () throws(JSONPatch.Failure) in try JSONPatch.apply(operations, to: document) }
        switch result {
        case .success(let patched):
            #expect(vector.value["error"] == nil, "applied, giving \(patched.jsonText)")
            let expected = try #require(vector.value["expected"])
            #expect(patched.isEquivalent(to: expected), "\(patched.jsonText)")
        case .failure(let failure):
            #expect(vector.value["error"] != nil, "refused: \(failure)")
        }
    }
}
