package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import fusionkit.scenario.Comparison;
import fusionkit.scenario.ScenarioRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java scenario runner: held to the comparison vectors (Tests/vectors/scenario-comparison),
 * and to the expectation every runner has: each file of examples/scenarios passes, each of
 * Tests/scenarios/failing fails, at the step `fusion test` names, and each of
 * Tests/scenarios/malformed fails at "load" (where `fusion test` cannot read it), with a
 * message naming what is wrong; a folder run goes on past every one.
 */
class ScenarioTest {
    @TempDir
    Path tmp;

    /** What `fusion test` prints for files, and its exit status. */
    record Shell(int status, List<String> lines) {
        static Shell run(String... arguments) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(System.getProperty("fusionkit.test.fusion"), "test"));
            command.addAll(List.of(arguments));
            Process shell = new ProcessBuilder(command).redirectErrorStream(true).start();
            List<String> lines = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            return new Shell(shell.waitFor(), lines);
        }

        /** The failing step `fusion test` names: "step 2 (advance 1e+300)", "at the end", or "load" when it cannot read the file. */
        String step() {
            if (lines.stream().anyMatch(line -> line.startsWith("  cannot read the scenario: "))) {
                return "load";
            }
            return lines.stream().filter(line -> line.startsWith("  step ")).findFirst()
                    .map(line -> line.strip().replaceAll(":$", "")).orElse("at the end");
        }
    }
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
        List<Path> files = ScenarioRunner.collect(Path.of("examples/scenarios"), Path.of("Tests/scenarios/passing"));
        assertTrue(files.size() >= 19, files.toString());
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

    /** Each file of Tests/scenarios/malformed and what its failure must name. */
    static final Map<String, List<String>> MALFORMED = Map.ofEntries(
            Map.entry("advance-a-string", List.of("step 1: \"advance\" must be a number of seconds (0 or more), not \"1\"")),
            Map.entry("advance-negative", List.of("step 1: \"advance\" must be a number of seconds (0 or more), not -1")),
            Map.entry("goto-a-fraction", List.of("step 1: \"goto\" must be a version number (0 or more) the instance keeps, not 0.5")),
            Map.entry("goto-past-uint64", List.of("step 1: \"goto\" must be a version number", "not 18446744073709551616")),
            Map.entry("integer-too-long", List.of("not JSON: ", "umber")),
            Map.entry("name-a-number", List.of("\"name\" must be a string, not a number (5)")),
            Map.entry("nesting-too-deep", List.of("not JSON: nesting deeper than 512 levels at line 7, column 536")),
            Map.entry("note-a-number", List.of("step 1: \"note\" must be a string, not a number (5)")),
            Map.entry("note-an-object", List.of("\"note\" must be a string, not an object")),
            Map.entry("respond-unknown-key", List.of("step 2: respond: unknown key \"extra\" (it has kind, result and, optionally, payload)")),
            Map.entry("schema-a-number", List.of("\"$schema\" must be a string, not a number (5)")),
            Map.entry("nothing-pending-a-string", List.of("\"nothingPending\" must be true or false, not a string (\"no\")")),
            Map.entry("nul-after-the-scenario", List.of("not JSON: unexpected text after the end of the JSON value", "line 10")),
            Map.entry("number-out-of-range", List.of("not JSON: number 1e400 is out of range at line 7, column 28")),
            Map.entry("unpaired-surrogate", List.of("not JSON: unpaired UTF-16 surrogate in \\u escape at line 7")));

    static String id(Path file) {
        return file.getFileName().toString().replaceAll("\\.scenario\\.json$", "");
    }

    @Test
    void everyMalformedScenarioFailsAtLoadAsFusionTestFailsIt() throws Exception {
        List<Path> files = ScenarioRunner.collect(Path.of("Tests/scenarios/malformed"));
        assertEquals(new TreeSet<>(MALFORMED.keySet()), new TreeSet<>(files.stream().map(ScenarioTest::id).toList()));
        for (Path file : files) {
            ScenarioRunner.Result result = ScenarioRunner.run(file, Fixtures.LIB);
            assertFalse(result.passed(), file + " should fail");
            assertEquals("load", result.step(), result.report());
            assertEquals(1, result.failures().size(), result.report());
            String line = result.failures().get(0);
            assertTrue(line.startsWith(file.getFileName() + ": "), line);
            for (String words : MALFORMED.get(id(file))) {
                assertTrue(line.contains(words), "\"" + words + "\" not in: " + line);
            }
            assertEquals("FAIL " + file.getFileName() + "\n  load:\n    " + line, result.report());
            Shell shell = Shell.run(file.toString());
            assertEquals(1, shell.status(), String.join("\n", shell.lines()));
            assertEquals("load", shell.step(), String.join("\n", shell.lines()));
        }
    }

    /** The step labels of advance steps, as `fusion test` (and Python) write the seconds. */
    @Test
    void advanceStepsAreNamedAsFusionTestNamesThem() throws Exception {
        List<String> seconds = List.of("0.5", "1e-5", "0.0001", "100.0", "2e15", "999999999999999", "1e16", "12345678.123456789",
                "1e300", "18446744074", "9300000000", "123456789012345678901234567890");
        for (int i = 0; i < seconds.size(); i++) {
            Path file = tmp.resolve(i + ".scenario.json");
            Files.writeString(file, "{\"feature\":\"counter\",\"steps\":[{\"send\":\"increase\"},{\"advance\":"
                    + seconds.get(i) + ",\"expect\":{\"value\":99}}]}");
            ScenarioRunner.Result result = ScenarioRunner.run(file, Fixtures.LIB);
            Shell shell = Shell.run(file.toString());
            assertEquals(shell.step(), result.step(), seconds.get(i) + ": " + result.report() + "\n" + shell.lines());
            assertTrue(result.step().startsWith("step 2 (advance "), result.report());
        }
    }

    @Test
    void nestingIsReadUpTo512LevelsAsTheLibraryReadsIt() throws Exception {
        for (int levels : new int[] {512, 513, 100_000}) {
            // The object, steps, the step and expect are 4 levels; the arrays make up the rest.
            int arrays = levels - 4;
            Path file = tmp.resolve("deep-" + levels + ".scenario.json");
            Files.writeString(file, "{\"feature\":\"counter\",\"exhaustive\":true,\"steps\":[{\"expect\":{\"value\":"
                    + "[".repeat(arrays) + "]".repeat(arrays) + "}}]}");
            ScenarioRunner.Result result = ScenarioRunner.run(file, Fixtures.LIB);
            assertFalse(result.passed());
            assertEquals(levels == 512 ? "step 1 (check)" : "load", result.step(), levels + " levels");
            if (levels > 512) {
                assertTrue(result.failures().get(0).contains("nesting deeper than 512 levels"), result.failures().get(0));
            }
            assertEquals(Shell.run(file.toString()).step(), result.step(), levels + " levels");
        }
    }

    /** The command line runs every file, malformed or not, says how many passed and failed, and exits 1. */
    @Test
    void theCommandLineGoesOnPastEveryMalformedFile() throws Exception {
        List<Path> bad = ScenarioRunner.collect(Path.of("Tests/scenarios/malformed"), Path.of("Tests/scenarios/failing"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("fusionkit.test.classpath"),
                ScenarioRunner.class.getName(), "Tests/scenarios/malformed", "examples/scenarios/counter-count.scenario.json",
                "Tests/scenarios/failing").redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, child.waitFor(), output);
        List<String> lines = output.lines().toList();
        assertEquals("1 passed, " + bad.size() + " failed", lines.get(lines.size() - 1), output);
        for (Path file : bad) {
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("FAIL " + file.getFileName())), file + ":\n" + output);
        }
        assertTrue(lines.contains("PASS counter-count.scenario.json: Counter: increase, decrease and reset the value"), output);
        assertFalse(output.contains("Exception"), output);
    }
}
