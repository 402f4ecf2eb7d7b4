package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * RFC 6902 JSON Patch, applied to a Jackson tree: what a front end following {@link Instance#statePatch} needs. Java's one
 * implementation, held to the shared vectors in Tests/vectors/json-patch (docs/rules/json-patch.md).
 */
public final class JsonPatch {
    private JsonPatch() {
    }

    /** The document with the operations applied in order; {@code document} is not changed. */
    public static JsonNode apply(JsonNode document, ArrayNode operations) {
        JsonNode root = document.deepCopy();
        for (JsonNode operation : operations) {
            String op = text(operation, "op");
            String path = text(operation, "path");
            switch (op) {
                case "add" -> root = add(root, path, value(operation).deepCopy());
                case "remove" -> root = remove(root, path);
                case "replace" -> root = tokens(path).length == 0 ? value(operation).deepCopy()
                        : add(remove(root, path), path, value(operation).deepCopy());
                case "move" -> {
                    String from = text(operation, "from");
                    JsonNode moved = get(root, from);
                    root = add(remove(root, from), path, moved);
                }
                case "copy" -> root = add(root, path, get(root, text(operation, "from")).deepCopy());
                case "test" -> {
                    if (!get(root, path).equals(value(operation))) {
                        throw new IllegalArgumentException("JSON Patch test failed at \"" + path + "\"");
                    }
                }
                default -> throw new IllegalArgumentException("JSON Patch: unknown op \"" + op + "\"");
            }
        }
        return root;
    }

    private static String text(JsonNode operation, String key) {
        JsonNode value = operation.get(key);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("JSON Patch: an operation without \"" + key + "\": " + operation);
        }
        return value.asText();
    }

    private static JsonNode value(JsonNode operation) {
        if (!operation.has("value")) {
            throw new IllegalArgumentException("JSON Patch: an operation without \"value\": " + operation);
        }
        return operation.get("value");
    }

    /** RFC 6901 reference tokens. */
    private static String[] tokens(String pointer) {
        if (pointer.isEmpty()) {
            return new String[0];
        }
        if (pointer.charAt(0) != '/') {
            throw new IllegalArgumentException("JSON Pointer must start with '/': \"" + pointer + "\"");
        }
        for (int i = pointer.indexOf('~'); i >= 0; i = pointer.indexOf('~', i + 1)) {
            if (i + 1 == pointer.length() || (pointer.charAt(i + 1) != '0' && pointer.charAt(i + 1) != '1')) {
                throw new IllegalArgumentException("JSON Pointer has a '~' not followed by 0 or 1: \"" + pointer + "\"");
            }
        }
        String[] parts = pointer.substring(1).split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            parts[i] = parts[i].replace("~1", "/").replace("~0", "~");
        }
        return parts;
    }

    private static JsonNode get(JsonNode root, String pointer) {
        JsonNode at = root;
        for (String token : tokens(pointer)) {
            at = child(at, token, pointer);
        }
        return at;
    }

    private static JsonNode child(JsonNode parent, String token, String pointer) {
        JsonNode found = parent instanceof ArrayNode array ? array.get(index(array, token, pointer, false))
                : parent instanceof ObjectNode object ? object.get(token) : null;
        if (found == null) {
            throw new IllegalArgumentException("JSON Patch: no value at \"" + pointer + "\"");
        }
        return found;
    }

    private static int index(ArrayNode array, String token, String pointer, boolean forAdd) {
        if (forAdd && token.equals("-")) {
            return array.size();
        }
        if (!token.matches("0|[1-9][0-9]*")) {
            throw new IllegalArgumentException("JSON Patch: not an array index in \"" + pointer + "\"");
        }
        int index = Integer.parseInt(token);
        if (index > array.size() || (!forAdd && index == array.size())) {
            throw new IllegalArgumentException("JSON Patch: index out of range in \"" + pointer + "\"");
        }
        return index;
    }

    private static JsonNode parentOf(JsonNode root, String[] tokens, String pointer) {
        JsonNode at = root;
        for (int i = 0; i < tokens.length - 1; i++) {
            at = child(at, tokens[i], pointer);
        }
        return at;
    }

    private static JsonNode add(JsonNode root, String pointer, JsonNode value) {
        String[] tokens = tokens(pointer);
        if (tokens.length == 0) {
            return value;
        }
        JsonNode parent = parentOf(root, tokens, pointer);
        String last = tokens[tokens.length - 1];
        if (parent instanceof ArrayNode array) {
            array.insert(index(array, last, pointer, true), value);
        } else if (parent instanceof ObjectNode object) {
            object.set(last, value);
        } else {
            throw new IllegalArgumentException("JSON Patch: no container at \"" + pointer + "\"");
        }
        return root;
    }

    private static JsonNode remove(JsonNode root, String pointer) {
        String[] tokens = tokens(pointer);
        if (tokens.length == 0) {
            throw new IllegalArgumentException("JSON Patch: cannot remove the whole document");
        }
        JsonNode parent = parentOf(root, tokens, pointer);
        String last = tokens[tokens.length - 1];
        if (parent instanceof ArrayNode array) {
            array.remove(index(array, last, pointer, false));
        } else if (parent instanceof ObjectNode object && object.has(last)) {
            object.remove(last);
        } else {
            throw new IllegalArgumentException("JSON Patch: no value at \"" + pointer + "\"");
        }
        return root;
    }
}
