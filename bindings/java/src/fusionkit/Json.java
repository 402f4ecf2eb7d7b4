package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What the code `fusion types --lang java` generates calls to read and write JSON: no
 * reflection, so it runs the same on Android after R8. A value of the wrong kind throws
 * {@link IllegalArgumentException} naming what was expected.
 */
public final class Json {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Json() {
    }

    /** A generated type: it writes itself as JSON. */
    public interface Value {
        JsonNode toJsonNode();
    }

    /** An input's JSON text: the bare case name, or {@code {"case": payload}}. */
    public static String input(String inputCase, JsonNode payload) {
        if (payload == null) {
            return Library.write(inputCase);
        }
        ObjectNode input = NODES.objectNode();
        input.set(inputCase, payload);
        return Library.write(input);
    }

    /** An object of these keys and values, in order: {@code object("id", Json.of(id), …)}. */
    public static ObjectNode object(Object... keysAndValues) {
        ObjectNode object = NODES.objectNode();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            object.set((String) keysAndValues[i], (JsonNode) keysAndValues[i + 1]);
        }
        return object;
    }

    public static JsonNode of(Boolean value) {
        return value == null ? NullNode.getInstance() : NODES.booleanNode(value);
    }

    public static JsonNode of(Long value) {
        return value == null ? NullNode.getInstance() : NODES.numberNode(value);
    }

    public static JsonNode of(Double value) {
        return value == null ? NullNode.getInstance() : NODES.numberNode(value);
    }

    public static JsonNode of(String value) {
        return value == null ? NullNode.getInstance() : NODES.textNode(value);
    }

    public static JsonNode of(JsonNode value) {
        return value == null ? NullNode.getInstance() : value;
    }

    public static JsonNode of(Value value) {
        return value == null ? NullNode.getInstance() : value.toJsonNode();
    }

    public static <T> JsonNode list(List<T> values, Function<T, JsonNode> write) {
        if (values == null) {
            return NullNode.getInstance();
        }
        ArrayNode array = NODES.arrayNode();
        values.forEach(value -> array.add(write.apply(value)));
        return array;
    }

    public static <T> JsonNode map(Map<String, T> values, Function<T, JsonNode> write) {
        if (values == null) {
            return NullNode.getInstance();
        }
        ObjectNode object = NODES.objectNode();
        values.forEach((key, value) -> object.set(key, write.apply(value)));
        return object;
    }

    // -- reading ----------------------------------------------------------------------------

    /** The field of an object (a missing one reads as null). */
    public static JsonNode field(JsonNode object, String name) {
        expect(object != null && object.isObject(), "an object", object);
        JsonNode value = object.get(name);
        return value == null ? NullNode.getInstance() : value;
    }

    /** The one key of an externally tagged union's object: {@code {"connect": …}}. */
    public static String tag(JsonNode object) {
        expect(object != null && object.isObject() && object.size() == 1, "an object with one key", object);
        return object.fieldNames().next();
    }

    public static boolean bool(JsonNode node) {
        expect(node.isBoolean(), "a boolean", node);
        return node.booleanValue();
    }

    public static long integer(JsonNode node) {
        expect(node.isIntegralNumber() && node.canConvertToLong(), "an integer", node);
        return node.longValue();
    }

    public static double number(JsonNode node) {
        expect(node.isNumber(), "a number", node);
        return node.doubleValue();
    }

    public static String string(JsonNode node) {
        expect(node.isTextual(), "a string", node);
        return node.textValue();
    }

    /** null for JSON null, else the value read. */
    public static <T> T optional(JsonNode node, Function<JsonNode, T> read) {
        return node == null || node.isNull() || node.isMissingNode() ? null : read.apply(node);
    }

    public static <T> List<T> list(JsonNode node, Function<JsonNode, T> read) {
        expect(node.isArray(), "an array", node);
        List<T> out = new ArrayList<>(node.size());
        node.forEach(element -> out.add(read.apply(element)));
        return Collections.unmodifiableList(out);
    }

    public static <T> Map<String, T> map(JsonNode node, Function<JsonNode, T> read) {
        expect(node.isObject(), "an object", node);
        Map<String, T> out = new LinkedHashMap<>();
        node.fields().forEachRemaining(entry -> out.put(entry.getKey(), read.apply(entry.getValue())));
        return Collections.unmodifiableMap(out);
    }

    public static IllegalArgumentException unknown(String what, String value) {
        return new IllegalArgumentException("unknown " + what + " \"" + value + "\"");
    }

    private static void expect(boolean ok, String what, JsonNode found) {
        if (!ok) {
            throw new IllegalArgumentException("expected " + what + ", found " + (found == null ? "nothing" : found));
        }
    }
}
