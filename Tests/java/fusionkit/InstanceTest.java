package fusionkit;

import static fusionkit.Fixtures.LIB;
import static fusionkit.Fixtures.json;
import static fusionkit.Fixtures.tree;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InstanceTest {
    @Test
    void theCounterSpec() {
        try (Instance counter = LIB.create("counter")) {
            assertEquals(new Instance.Snapshot(json("{\"value\":0,\"isReset\":false,\"alert\":null}"), 0), counter.snapshot());
            counter.send("increase");
            counter.send("increase");
            counter.send(json("{\"decrease\":{}}"));
            assertEquals(json("{\"value\":1,\"isReset\":false,\"alert\":null}"), counter.state());
            counter.send("show");
            assertEquals("The value is 1.", counter.state().path("alert").asText());
            counter.send("alertDismissed");
            counter.sendJson("{\"reset\":{}}");
            assertEquals(6, counter.version());
            assertEquals(new Instance.StateJson("{\"value\":0,\"isReset\":true,\"alert\":null}", 6), counter.stateJson());
        }
    }

    @Test
    void inputsInEveryForm() {
        try (Instance answer = LIB.create("answer")) {
            answer.send("answerChanged", Map.of("text", "  hi "));
            assertEquals("  hi ", answer.state().path("answer").asText());
            answer.send(json("{\"answerChanged\":{\"text\":\"두부 🐱\"}}"));
            assertEquals(json("{\"answer\":\"두부 🐱\",\"isSubmitEnabled\":true,\"isSubmitting\":false,\"submitted\":null}"),
                    answer.state());
            answer.sendJson("{\"answerChanged\":{\"text\":\"\\u00e9\"}}");
            assertEquals("é", answer.state().path("answer").asText());
            answer.send("answerChanged", Map.of("text", "quote \" and \\ backslash"));
            assertEquals("quote \" and \\ backslash", answer.state().path("answer").asText());
            assertEquals(4, answer.version());
        }
        try (Instance wifi = LIB.create("wifi", new CreateOptions().settings(Map.of("liveScan", false)))) {
            wifi.send("networkTapped", Map.of("id", "blob"));
            assertEquals("blob", wifi.state().at("/destination/connect/network/id").asText());
            wifi.send("wifiToggled", Map.of("isOn", false));
            assertFalse(wifi.state().path("isOn").asBoolean());
            assertTrue(wifi.state().path("destination").isNull());
        }
    }

    @Test
    void sendAndReadIsOneRoundTrip() {
        try (Instance counter = LIB.create("counter")) {
            assertEquals(json("{\"value\":1,\"isReset\":false,\"alert\":null}"), counter.sendAndRead("increase"));
            assertEquals(new Instance.StateJson("{\"value\":2,\"isReset\":false,\"alert\":null}", 2),
                    counter.sendAndReadJson("\"increase\""));
            assertThrows(UnknownInputException.class, () -> counter.sendAndRead("jump"));
            assertEquals(2, counter.version());
        }
        try (Instance answer = LIB.create("answer")) {
            assertEquals("x", answer.sendAndRead("answerChanged", Map.of("text", "x")).path("answer").asText());
        }
    }

    @Test
    void aStateLargerThanTheReadBufferAndOverTheTextLimit() {
        // A Wi-Fi state of 3,000 networks is ~600 KB of JSON: past the 64 KiB buffer sendAndRead starts with.
        try (Instance wifi = LIB.create("wifi", new CreateOptions().settings(Map.of("liveScan", false)))) {
            ObjectNode big = (ObjectNode) wifi.state();
            var networks = big.putArray("foundNetworks");
            for (int i = 0; i < 3000; i++) {
                networks.add(tree(Map.of("id", "n" + i, "name", "Network " + i, "isSecured", i % 2 == 0,
                        "connectivity", 0.5, "signalBars", 2, "signalPercent", 50)));
            }
            String text = big.toString();
            assertTrue(text.length() > 200_000, "" + text.length());
            try (Instance large = LIB.create("wifi", new CreateOptions().state(big).settings(Map.of("liveScan", false)))) {
                JsonNode after = large.sendAndRead("networkTapped", Map.of("id", "n2998"));
                assertEquals(3000, after.path("foundNetworks").size());
                assertEquals("n2998", after.at("/destination/connect/network/id").asText());
                assertEquals(large.state(), after);
                // The text limit: a state longer than FK_LIMIT_LENGTH is refused and nothing is made.
                long old = LIB.limit(Library.LIMIT_LENGTH, text.length() - 1);
                try {
                    LimitExceededException error = assertThrows(LimitExceededException.class,
                            () -> LIB.create("wifi", new CreateOptions().state(big)));
                    assertEquals(14, error.code());
                    assertEquals("FK_ERR_LIMIT_EXCEEDED", error.status());
                    assertTrue(error.message().contains("FK_LIMIT_LENGTH"), error.message());
                    // Reading a large state is no text argument: it still comes out whole.
                    assertEquals(3000, large.state().path("foundNetworks").size());
                } finally {
                    LIB.limit(Library.LIMIT_LENGTH, old);
                }
                assertEquals(1, large.version());
            }
        }
    }

    @Test
    void theStateIsACopy() {
        try (Instance counter = LIB.create("counter")) {
            ObjectNode state = (ObjectNode) counter.state();
            state.put("value", 99);
            assertEquals(0, counter.state().path("value").asInt());
        }
    }

    @Test
    void createWithAStateAndOptions() {
        JsonNode start = json("{\"value\":41,\"isReset\":false,\"alert\":null}");
        try (Instance counter = LIB.create("counter", new CreateOptions().state(start))) {
            counter.send("increase");
            assertEquals(new Instance.Snapshot(json("{\"value\":42,\"isReset\":false,\"alert\":null}"), 1), counter.snapshot());
        }
        try (Instance counter = LIB.create("counter", "{\"state\":{\"value\":0,\"isReset\":true,\"alert\":\"x\"},\"seed\":3}")) {
            assertEquals("x", counter.state().path("alert").asText());
        }
        try (Instance profile = LIB.create("profile", new CreateOptions().user("alice", Map.of("name", "Alice Example")))) {
            assertEquals("Alice Example", profile.state().path("signedInAs").asText());
        }
        InvalidArgumentException error = assertThrows(InvalidArgumentException.class,
                () -> LIB.create("counter", new CreateOptions().set("sead", tree(1))));
        assertTrue(error.message().contains("\"sead\""), error.message());
        // A setting the feature does not declare (the manifest's "settings") is refused too.
        InvalidArgumentException typo = assertThrows(InvalidArgumentException.class,
                () -> LIB.create("wifi", new CreateOptions().settings(Map.of("liveScna", false))));
        assertTrue(typo.message().contains("\"liveScna\""), typo.message());
    }

    @Test
    void aSeedRepeatsWhatHomeDraws() {
        List<String> first = draws(7);
        assertEquals(first, draws(7));
        assertTrue(first.get(0).startsWith("Number "), first.toString());
        assertTrue(draws(8).equals(first) ? !draws(9).equals(first) : true);
    }

    private static List<String> draws(long seed) {
        List<String> out = new ArrayList<>();
        try (Instance home = LIB.create("home", new CreateOptions().seed(seed))) {
            for (String tap : List.of("viewDidLoad", "tap1", "tap2", "tap1", "tap2", "tap1")) {
                home.send(tap);
                out.add(home.state().path("desc").asText());
            }
        }
        return out;
    }

    @Test
    void theManualClock() {
        try (Instance answer = LIB.create("answer", new CreateOptions().manualClock())) {
            answer.send("answerChanged", Map.of("text", " blue "));
            answer.send("submitTapped");
            assertTrue(answer.state().path("isSubmitting").asBoolean());
            assertEquals(new Instance.Pending(1, 0), answer.pending());
            assertTrue(answer.nextWake().isPresent());
            answer.advanceClock(Duration.ofMillis(400));
            assertTrue(answer.state().path("isSubmitting").asBoolean());
            answer.advanceClockNanos(100_000_000);
            assertEquals(new Instance.Snapshot(json(
                    "{\"answer\":\"\",\"isSubmitEnabled\":false,\"isSubmitting\":false,\"submitted\":\"blue\"}"), 3),
                    answer.snapshot());
            assertTrue(answer.pending().isIdle());
            assertTrue(answer.nextWake().isEmpty());
            assertThrows(IllegalArgumentException.class, () -> answer.advanceClockNanos(-1));
        }
        try (Instance system = LIB.create("answer")) {
            assertThrows(InvalidArgumentException.class, () -> system.advanceClock(Duration.ofSeconds(1)));
        }
    }

    @Test
    void aCheckpointGoesOnInAnotherInstance() {
        try (Instance answer = LIB.create("answer", new CreateOptions().manualClock().seed(5))) {
            answer.send("answerChanged", Map.of("text", "red"));
            JsonNode checkpoint = answer.checkpoint();
            assertEquals(1, checkpoint.path("version").asLong());
            answer.restartEffects();
            try (Instance copy = LIB.create("answer", new CreateOptions().manualClock().checkpoint(checkpoint))) {
                assertEquals(answer.snapshot(), copy.snapshot());
            }
        }
    }

    @Test
    void timeTravel() {
        try (Instance counter = LIB.create("counter", new CreateOptions().history(10))) {
            for (int i = 0; i < 3; i++) {
                counter.send("increase");
            }
            JsonNode history = counter.history();
            assertEquals(10, history.path("limit").asInt());
            assertEquals("input", history.at("/entries/1/cause").asText());
            assertEquals(4, counter.goTo(1));
            assertEquals(1, counter.state().path("value").asInt());
            counter.send("decrease");
            assertEquals(6, counter.back(2));
            assertEquals(0, counter.state().path("value").asInt());
            InvalidArgumentException error = assertThrows(InvalidArgumentException.class, () -> counter.goTo(2));
            assertTrue(error.message().contains("not kept"), error.message());
            assertThrows(InvalidArgumentException.class, () -> counter.back(30));
            assertEquals(6, counter.version());
        }
        try (Instance plain = LIB.create("counter")) {
            assertThrows(InvalidArgumentException.class, plain::history);
        }
    }

    @Test
    void statePatchesFollowTheState() {
        try (Instance counter = LIB.create("counter")) {
            StatePatch first = counter.statePatch(0);
            assertEquals(0L, first.from());
            assertEquals(0, first.patch().size());
            counter.send("increase");
            counter.send("show");
            StatePatch patch = counter.statePatch(0);
            assertEquals(2, patch.to());
            assertEquals(json("[{\"op\":\"replace\",\"path\":\"/value\",\"value\":1},"
                    + "{\"op\":\"replace\",\"path\":\"/alert\",\"value\":\"The value is 1.\"}]"), patch.patch());
            StatePatch far = counter.statePatch(12345);
            assertNull(far.from());
            assertTrue(far.isWholeState());
            assertEquals(counter.state(), far.state());
        }
    }

    @Test
    void useAfterCloseThrowsAndClosingTwiceDoesNothing() {
        Instance counter = LIB.create("counter");
        long handle = counter.handle();
        assertNotEquals(0, handle);
        counter.close();
        counter.close();
        assertTrue(counter.isClosed());
        assertEquals(handle, counter.handle());
        InvalidHandleException error = assertThrows(InvalidHandleException.class, () -> counter.send("increase"));
        assertTrue(error.message().contains("not a live instance"), error.message());
        assertEquals("fk_send", error.function());
        assertThrows(InvalidHandleException.class, counter::state);
        assertThrows(InvalidHandleException.class, counter::version);
        assertThrows(InvalidHandleException.class, () -> counter.subscribe(v -> { }));
        assertThrows(InvalidHandleException.class, () -> LIB.check(LIB.c().fk_destroy(handle)));
    }

    @Test
    void anUnclosedInstanceIsDestroyedByTheCleaner() throws InterruptedException {
        long handle = LIB.create("counter").handle();
        Fixtures.waitUntil(() -> {
            System.gc();
            return LIB.c().fk_version(handle, new com.sun.jna.ptr.LongByReference()) == InvalidHandleException.CODE;
        }, "the Cleaner to destroy the dropped instance");
    }

    @Test
    void limits() {
        assertEquals(16L * 1024 * 1024, LIB.limit(Library.LIMIT_LENGTH));
        assertEquals(512, LIB.limit(Library.LIMIT_JSON_DEPTH));
        assertEquals(1024, LIB.limit(Library.LIMIT_SUBSCRIBERS, 5));
        try {
            assertEquals(5, LIB.limit(Library.LIMIT_SUBSCRIBERS));
        } finally {
            LIB.limit(Library.LIMIT_SUBSCRIBERS, 1024);
        }
        assertThrows(InvalidArgumentException.class, () -> LIB.limit(42));
    }
}
