package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import fusionkit.scenario.Comparison;
import fusionkit.scenario.ScenarioRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Java scenario runner: held to the comparison vectors (Tests/vectors/scenario-comparison),
 * and to the expectation every runner has: each file of examples/scenarios passes, each of
 * Tests/scenarios/failing fails, at the step `fusion test` names.
 */
class ScenarioTest {
    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(item -> out.add(item.asText()));
        return out;
    }

    static Stream<DynamicTest> cases(String kind, java.util.function.Consumer<JsonNode> check) throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode file : RuleVectorsTest.files(kind)) {
            for (JsonNode c : file.path("cases")) {
                tests.add(DynamicTest.dynamicTest(kind + ": " + c.path("name").asText(), () -> check.accept(c)));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> equalVectors() throws IOException {
        return cases("equal", c -> {
            assertEquals(c.path("equal").asBoolean(), Comparison.equal(c.get("a"), c.get("b")));
            assertEquals(c.path("equal").asBoolean(), Comparison.equal(c.get("b"), c.get("a")), "symmetric");
        });
    }

    @TestFactory
    Stream<DynamicTest> differenceVectors() throws IOException {
        return cases("differences", c -> {
            List<Comparison.Difference> found = c.path("mode").asText().equals("state")
                    ? Comparison.exact(c.get("expected"), c.get("actual"))
                    : Comparison.expected(c.get("expected"), c.get("actual"));
            assertEquals(texts(c.get("paths")), found.stream().map(d -> d.place().text()).toList());
        });
    }

    @TestFactory
    Stream<DynamicTest> changeVectors() throws IOException {
        return cases("changes", c -> {
            Set<String> found = new HashSet<>();
            Comparison.changes(c.get("before"), c.get("after")).forEach(d -> found.add(d.place().text()));
            assertEquals(new HashSet<>(texts(c.get("paths"))), found);
        });
    }

    @Test
    void aChangeIsNamedByItsPlaceAPlaceAboveOrAPlaceBelow() {
        List<Comparison.Place> named = Comparison.named(Fixtures.json("{\"destination\":{\"connect\":{\"isConnecting\":true}}}"));
        assertEquals(List.of("destination", "destination.connect", "destination.connect.isConnecting"),
                named.stream().map(Comparison.Place::text).toList());
        JsonNode before = Fixtures.json("{\"destination\":null,\"other\":{\"a\":1}}");
        JsonNode after = Fixtures.json("{\"destination\":{\"connect\":{\"isConnecting\":true}},\"other\":{\"a\":2}}");
        List<Comparison.Difference> changes = Comparison.changes(before, after);
        assertEquals(List.of("destination", "other.a"), changes.stream().map(d -> d.place().text()).toList());
        assertTrue(Comparison.isNamed(changes.get(0).place(), named));
        assertTrue(Comparison.isNamed(new Comparison.Place(List.of("destination")),
                List.of(new Comparison.Place(List.of("destination", "connect")))), "a place below names it");
        assertFalse(Comparison.isNamed(changes.get(1).place(), named));
        List<Comparison.Place> above = Comparison.named(Fixtures.json("{\"other\":{}}"));
        assertTrue(Comparison.isNamed(changes.get(1).place(), above), "a place above names it");
    }

    @Test
    void everyExampleScenarioPasses() throws IOException {
        List<Path> files = ScenarioRunner.collect(Path.of("examples/scenarios"));
        assertTrue(files.size() >= 15, files.toString());
        for (Path file : files) {
            ScenarioRunner.Result result = ScenarioRunner.run(file, Fixtures.LIB);
            assertTrue(result.passed(), result.report());
        }
    }

    @Test
    void everyFailingScenarioFailsAtTheStepFusionTestNames() throws Exception {
        List<Path> files = ScenarioRunner.collect(Path.of("Tests/scenarios/failing"));
        assertTrue(files.size() >= 5, files.toString());
        String fusion = System.getProperty("fusionkit.test.fusion");
        for (Path file : files) {
            ScenarioRunner.Result result = ScenarioRunner.run(file, Fixtures.LIB);
            assertFalse(result.passed(), file + " should fail");
            assertFalse(result.failures().isEmpty(), result.report());
            Process shell = new ProcessBuilder(fusion, "test", file.toString()).redirectErrorStream(true).start();
            List<String> lines = new String(shell.getInputStream().readAllBytes()).lines().toList();
            assertEquals(1, shell.waitFor(), String.join("\n", lines));
            String step = lines.stream().filter(line -> line.startsWith("  step ")).findFirst()
                    .map(line -> line.strip().replaceAll(":$", "")).orElse("at the end");
            assertEquals(step, result.step(), result.report() + "\n" + String.join("\n", lines));
        }
    }
}
