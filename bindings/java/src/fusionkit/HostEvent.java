package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A request a feature asks the host to do, or the cancel of one:
 * {@code {"event":"request","id":7,"kind":"fetchPet","payload":{...}}} or {@code {"event":"cancel","id":7}}.
 * Answer a request with {@link Instance#respond} or {@link Instance#failRequest}, once; after a cancel, do not.
 */
public record HostEvent(String event, long id, String kind, JsonNode payload) {
    public boolean isRequest() {
        return "request".equals(event);
    }

    public boolean isCancel() {
        return "cancel".equals(event);
    }

    static HostEvent from(JsonNode json) {
        JsonNode kind = json.get("kind");
        return new HostEvent(json.path("event").asText(), json.path("id").asLong(),
                kind == null || kind.isNull() ? null : kind.asText(), json.get("payload"));
    }
}
