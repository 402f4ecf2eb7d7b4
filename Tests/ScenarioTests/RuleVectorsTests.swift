import Foundation
import FusionHost
import RuleVectors
import Testing

@testable import FusionScenario

/// How scenarios compare states (docs/rules/scenario-comparison.md), held to the shared
/// vectors in Tests/vectors/scenario-comparison, which the Python runner's tests read too.
@Suite struct ScenarioComparisonVectorTests {
    typealias Vector = RuleVector

    @Test func everyKindHasVectors() throws {
        for kind in ["equal", "differences", "changes"] { #expect(try !Vector.cases("scenario-comparison", kind).isEmpty, "\(kind)") }
    }

    @Test(arguments: try Vector.cases("scenario-comparison", "equal"))
    func equality(_ vector: Vector) throws {
        let a = try #require(vector.value["a"])
        let b = try #require(vector.value["b"])
        #expect(a.isEquivalent(to: b) == vector.value["equal"]?.boolValue)
        #expect(b.isEquivalent(to: a) == vector.value["equal"]?.boolValue)
    }

    /// The place a difference line names: before its first ": "; "the state" is "".
    private static func place(_ line: String) -> String {
        let place = line.components(separatedBy: ": ").first ?? line
        return place == "the state" ? "" : place
    }

    @Test(arguments: try Vector.cases("scenario-comparison", "differences"))
    func differences(_ vector: Vector) throws {
        let expected = try #require(vector.value["expected"])
        let actual = try #require(vector.value["actual"])
        let lines =
            vector.value["mode"]?.stringValue == "state"
            ? StateComparison.exact(expected: expected, actual: actual)
            : StateComparison.partial(expected: expected, actual: actual)
        let paths = (vector.value["paths"]?.elements ?? []).compactMap(\.stringValue)
        #expect(lines.map(Self.place) == paths, "\(lines)")
    }

    @Test(arguments: try Vector.cases("scenario-comparison", "changes"))
    func changes(_ vector: Vector) throws {
        let found = StateComparison.changes(from: vector.value["before"], to: vector.value["after"]).map(\.path)
        let paths = (vector.value["paths"]?.elements ?? []).compactMap(\.stringValue)
        #expect(found.sorted() == paths.sorted())
    }
}
