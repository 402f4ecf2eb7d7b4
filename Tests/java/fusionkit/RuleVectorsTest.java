package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The shared vectors of Tests/vectors that the Java package follows, picked by kind: a new case is checked with no change here. */
class RuleVectorsTest {
    static final Path VECTORS = Path.of("Tests/vectors");

    static List<JsonNode> files(String kind) throws IOException {
        List<JsonNode> found = new ArrayList<>();
        try (Stream<Path> paths = Files.walk(VECTORS)) {
            for (Path path : paths.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonNode file = Fixtures.json(Files.readString(path));
                if (file.path("kind").asText().equals(kind)) {
                    found.add(file);
                }
            }
        }
        assertTrue(!found.isEmpty(), "no vectors of kind " + kind + " under " + VECTORS.toAbsolutePath());
        return found;
    }

    @TestFactory
    Stream<DynamicTest> structuredInputs() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode file : files("structured")) {
            for (JsonNode c : file.path("cases")) {
                tests.add(DynamicTest.dynamicTest(c.path("name").asText(), () -> {
                    JsonNode input = c.get("input");
                    Object given = input.isTextual() ? input.asText() : input;
                    @SuppressWarnings("unchecked")
                    Map<String, Object> fields = c.has("fields") ? Fixtures.JSON.convertValue(c.get("fields"), Map.class) : null;
                    if (c.path("error").asBoolean()) {
                        assertThrows(IllegalArgumentException.class, () -> Inputs.structured(given, fields));
                    } else {
                        assertEquals(c.get("json"), Fixtures.json(Inputs.structured(given, fields)));
                    }
                }));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> jsonPatch() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode file : files("apply")) {
            for (JsonNode c : file.path("cases")) {
                tests.add(DynamicTest.dynamicTest(c.path("name").asText(), () -> {
                    JsonNode before = c.get("doc").deepCopy();
                    ArrayNode patch = (ArrayNode) c.get("patch");
                    if (c.has("error")) {
                        assertThrows(IllegalArgumentException.class, () -> JsonPatch.apply(c.get("doc"), patch));
                    } else {
                        assertEquals(c.get("expected"), JsonPatch.apply(c.get("doc"), patch));
                    }
                    assertEquals(before, c.get("doc"), "the document given is not changed");
                }));
            }
        }
        return tests.stream();
    }
}
