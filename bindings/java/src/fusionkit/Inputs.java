package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The structured input shorthand (docs/rules/input-shorthand.md, vectors in
 * Tests/vectors/input-shorthand): a case name with no fields, or an empty map of them, is
 * the bare name {@code "increase"}; a case name with fields is {@code {name: fields}}; an
 * input object (a JSON object or a Map) is sent as it is; anything else, or an input
 * object with fields besides, is refused before anything is sent.
 */
public final class Inputs {
    private Inputs() {
    }

    /** The JSON text of an input given as a program gives it; {@link IllegalArgumentException} when refused. */
    public static String structured(Object input, Map<String, ?> fields) {
        boolean noFields = fields == null || fields.isEmpty();
        if (input instanceof String name) {
            if (noFields) {
                return Library.write(name);
            }
            return Library.write(Map.of(name, fields));
        }
        JsonNode tree = input instanceof JsonNode node ? node
                : input instanceof Map<?, ?> map ? Library.JSON.valueToTree(map) : null;
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("an input is a case name or an input object, not " + describe(input));
        }
        if (fields != null) {
            throw new IllegalArgumentException("fields go either inside the input object or beside a case name, not both");
        }
        return Library.write(tree);
    }

    private static String describe(Object input) {
        if (input == null) {
            return "null";
        }
        return input instanceof JsonNode node ? "JSON " + node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)
                : "a " + input.getClass().getSimpleName();
    }
}
