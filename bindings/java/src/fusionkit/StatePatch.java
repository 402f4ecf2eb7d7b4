package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * What fk_state_patch() returns: an RFC 6902 patch from version {@code from} to {@code to},
 * or, when the library no longer keeps {@code from}, the whole state ({@code from} null).
 */
public record StatePatch(Long from, long to, ArrayNode patch, JsonNode state) {
    public boolean isWholeState() {
        return state != null;
    }

    /** The state at {@link #to}, given the state held at {@link #from} (not changed). */
    public JsonNode applyTo(JsonNode held) {
        return isWholeState() ? state.deepCopy() : JsonPatch.apply(held, patch);
    }

    static StatePatch from(JsonNode json) {
        JsonNode from = json.get("from");
        JsonNode patch = json.get("patch");
        return new StatePatch(from == null || from.isNull() ? null : from.asLong(), json.path("to").asLong(),
                patch instanceof ArrayNode array ? array : null, json.get("state"));
    }
}
