package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The options of fk_create_with_options(), built fluently:
 * {@code new CreateOptions().manualClock().seed(7).hostRequests().settings(Map.of("liveScan", false))}.
 * Every key is optional; the library checks them (an unknown key or a value of the wrong
 * kind is an {@link InvalidArgumentException} naming it).
 */
public final class CreateOptions {
    private final ObjectNode json = Library.JSON.createObjectNode();

    /** The state to start from, in the shape {@link Instance#state()} returns. */
    public CreateOptions state(JsonNode state) {
        return set("state", state);
    }

    /** The state to start from, as JSON text. */
    public CreateOptions state(String stateJson) {
        return set("state", Library.parse(stateJson));
    }

    /** The manifest's "stateVersion" of the library that saved {@link #state}. */
    public CreateOptions stateVersion(int version) {
        json.put("stateVersion", version);
        return this;
    }

    /** Seeds the instance's random source (an unsigned 64-bit number). */
    public CreateOptions seed(long seed) {
        json.put("seed", new java.math.BigInteger(Long.toUnsignedString(seed)));
        return this;
    }

    /** Time stands still until {@link Instance#advanceClock}. */
    public CreateOptions manualClock() {
        json.put("clock", "manual");
        return this;
    }

    /** The host answers the feature's requests ({@link Instance#setRequestHandler}, {@link Instance#pollRequest}). */
    public CreateOptions hostRequests() {
        json.put("requests", "host");
        return this;
    }

    /** Feature-specific settings, e.g. {@code {"liveScan": false}} for "wifi". */
    public CreateOptions settings(Map<String, ?> settings) {
        return set("settings", Library.JSON.valueToTree(settings));
    }

    /** How many versions to keep for time travel ({@link Instance#history()}, {@link Instance#goTo}). */
    public CreateOptions history(int versions) {
        json.put("history", versions);
        return this;
    }

    /** Go on from what {@link Instance#checkpoint()} wrote (needs {@link #manualClock()}). */
    public CreateOptions checkpoint(JsonNode checkpoint) {
        return set("checkpoint", checkpoint);
    }

    /** The signed-in user the host vouches for. */
    public CreateOptions user(String subject, Map<String, ?> claims) {
        ObjectNode user = json.putObject("user");
        user.put("subject", subject);
        user.set("claims", Library.JSON.valueToTree(claims));
        return this;
    }

    /** Any key, for options newer than this class. */
    public CreateOptions set(String key, JsonNode value) {
        json.set(key, value);
        return this;
    }

    /** The options as the JSON object the library reads (a copy). */
    public ObjectNode toJson() {
        return json.deepCopy();
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
