package fusionkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** What the tests share: the example library (FUSIONKIT_LIBRARY, set by scripts/test-java), JSON, waiting. */
final class Fixtures {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Library LIB = Library.load();

    static final Map<String, Object> PET = Map.of("name", "Dubu", "species", "cat", "age", 4);
    static final Map<String, Object> FAMILY = Map.of("members", java.util.List.of(Map.of("name", "Yuna", "relation", "mother")));
    static final Map<String, Object> SCHOOL = Map.of("name", "Maple", "className", "Owls", "teacher", "Mr. Seo");
    static final Map<String, Object> BABY = Map.of("name", "Haneul", "birthDate", "2024-02-29", "heightCm", 84, "weightKg", 11.2);
    static final Map<String, Map<String, Object>> ANSWERS = Map.of(
            "fetchPet", PET, "fetchFamily", FAMILY, "fetchPreschool", SCHOOL, "fetchBabyProfile", BABY);

    private Fixtures() {
    }

    static Path libraryPath() {
        return LIB.path();
    }

    static JsonNode json(String text) {
        return Library.parse(text);
    }

    static JsonNode tree(Object value) {
        return JSON.valueToTree(value);
    }

    /** The same JSON value: objects as unordered maps, numbers by value (Jackson's IntNode 3 is not its LongNode 3). */
    static boolean sameJson(JsonNode a, JsonNode b) {
        return a.equals((x, y) -> x.isNumber() && y.isNumber()
                ? x.decimalValue().compareTo(y.decimalValue()) : x.equals(y) ? 0 : 1, b);
    }

    static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }
}
