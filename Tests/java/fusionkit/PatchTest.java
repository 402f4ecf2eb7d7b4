package fusionkit;

import static fusionkit.Fixtures.LIB;
import static fusionkit.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Patches from fk_state_patch, applied in Java, give exactly what fk_state gives. */
class PatchTest {
    @Test
    void followingTheWiFiScreenByPatchesGivesItsStates() {
        CreateOptions options = new CreateOptions().manualClock().seed(3).settings(Map.of("liveScan", true));
        try (Instance wifi = LIB.create("wifi", options)) {
            Instance.Snapshot start = wifi.snapshot();
            JsonNode held = start.state();
            long version = start.version();
            assertEquals(version, wifi.statePatch(version).from()); // the library keeps versions from the first call
            int patches = 0;
            String[][] inputs = {
                {"screenAppeared"}, {"networkTapped", "blob"}, {"destinationDismissed"}, {"infoButtonTapped", "cafe"},
                {"destinationDismissed"}, {"wifiToggled"}, {"wifiToggled"}, {"screenDisappeared"}};
            boolean on = true;
            for (String[] input : inputs) {
                switch (input[0]) {
                    case "networkTapped", "infoButtonTapped" -> wifi.send(input[0], Map.of("id", input[1]));
                    case "wifiToggled" -> {
                        on = !on;
                        wifi.send("wifiToggled", Map.of("isOn", on));
                    }
                    default -> wifi.send(input[0]);
                }
                for (int tick = 0; tick < 3; tick++) {
                    wifi.advanceClock(Duration.ofSeconds(1)); // a live scan moves the networks' bars
                    StatePatch patch = wifi.statePatch(version);
                    // The whole state where it costs less than the patch (a small state, or
                    // a scan that moved every network), else a patch from the version held.
                    if (!patch.isWholeState()) {
                        assertEquals(version, patch.from());
                        patches += patch.patch().size();
                    }
                    held = patch.applyTo(held);
                    version = patch.to();
                    assertEquals(wifi.state(), held, "after " + String.join(" ", input) + " at v" + version);
                }
            }
            assertTrue(patches > 10, "only " + patches + " operations: the test followed too little");
        }
    }

    @Test
    void everyOperationOfRfc6902() {
        JsonNode doc = json("{\"a\":[1,2,3],\"b\":{\"c\":\"d\"},\"e/f\":0,\"g~h\":1}");
        ArrayNode ops = (ArrayNode) json("["
                + "{\"op\":\"add\",\"path\":\"/a/1\",\"value\":9},"
                + "{\"op\":\"add\",\"path\":\"/a/-\",\"value\":4},"
                + "{\"op\":\"remove\",\"path\":\"/a/0\"},"
                + "{\"op\":\"replace\",\"path\":\"/b/c\",\"value\":[true]},"
                + "{\"op\":\"move\",\"from\":\"/b/c\",\"path\":\"/moved\"},"
                + "{\"op\":\"copy\",\"from\":\"/moved\",\"path\":\"/copied\"},"
                + "{\"op\":\"test\",\"path\":\"/e~1f\",\"value\":0},"
                + "{\"op\":\"replace\",\"path\":\"/g~0h\",\"value\":2}]");
        assertEquals(json("{\"a\":[9,2,3,4],\"b\":{},\"e/f\":0,\"g~h\":2,\"moved\":[true],\"copied\":[true]}"),
                JsonPatch.apply(doc, ops));
        assertEquals(json("{\"a\":[1,2,3],\"b\":{\"c\":\"d\"},\"e/f\":0,\"g~h\":1}"), doc, "the document is not changed");
        assertEquals(json("7"), JsonPatch.apply(doc, (ArrayNode) json("[{\"op\":\"replace\",\"path\":\"\",\"value\":7}]")));
        assertThrows(IllegalArgumentException.class,
                () -> JsonPatch.apply(doc, (ArrayNode) json("[{\"op\":\"test\",\"path\":\"/e~1f\",\"value\":1}]")));
        assertThrows(IllegalArgumentException.class,
                () -> JsonPatch.apply(doc, (ArrayNode) json("[{\"op\":\"remove\",\"path\":\"/nope\"}]")));
        assertThrows(IllegalArgumentException.class,
                () -> JsonPatch.apply(doc, (ArrayNode) json("[{\"op\":\"add\",\"path\":\"/a/7\",\"value\":1}]")));
    }
}
