package fusionkit;

import static fusionkit.Fixtures.LIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CallbackTest {
    record Heard(long version, Thread thread, JsonNode state) {
    }

    @Test
    void changesOnTheSendingThread() {
        List<Heard> heard = new CopyOnWriteArrayList<>();
        try (Instance counter = LIB.create("counter")) {
            Subscription subscription = counter.subscribe(v -> heard.add(new Heard(v, Thread.currentThread(), counter.state())));
            counter.send("increase");
            counter.send("increase");
            assertEquals(List.of(1L, 2L), heard.stream().map(Heard::version).toList());
            assertTrue(heard.stream().allMatch(h -> h.thread() == Thread.currentThread()));
            assertEquals(2, heard.get(1).state().path("value").asInt());
            assertTrue(subscription.isActive());
            subscription.close();
            subscription.close();
            assertFalse(subscription.isActive());
            counter.send("increase");
            assertEquals(2, heard.size());
        }
    }

    @Test
    void theWiFiJoinArrivesFromALibraryThread() throws InterruptedException {
        BlockingQueue<Heard> arrived = new LinkedBlockingQueue<>();
        try (Instance wifi = LIB.create("wifi", new CreateOptions().settings(Map.of("liveScan", false)))) {
            wifi.subscribe(v -> arrived.add(new Heard(v, Thread.currentThread(), wifi.state())));
            wifi.send("networkTapped", Map.of("id", "blob"));
            wifi.send("passwordChanged", Map.of("password", "blob"));
            wifi.send("joinButtonTapped");
            for (int i = 0; i < 3; i++) {
                assertSame(Thread.currentThread(), arrived.poll(5, TimeUnit.SECONDS).thread());
            }
            Heard joined = arrived.poll(10, TimeUnit.SECONDS);
            assertNotNull(joined, "the join's result");
            assertNotEquals(Thread.currentThread(), joined.thread(), "the join's result should come from a library thread");
            assertEquals(4, joined.version());
            assertEquals("blob", joined.state().path("selectedNetworkID").asText());
            assertTrue(joined.state().path("destination").isNull());
        }
    }

    @Test
    void anExecutorGetsTheCallsOnItsThread() throws Exception {
        ExecutorService ui = Executors.newSingleThreadExecutor(r -> new Thread(r, "ui"));
        try (Instance counter = LIB.create("counter")) {
            BlockingQueue<String> threads = new LinkedBlockingQueue<>();
            counter.subscribe(ui, v -> threads.add(Thread.currentThread().getName() + " v" + v));
            counter.send("increase");
            counter.send("increase");
            assertEquals("ui v1", threads.poll(5, TimeUnit.SECONDS));
            assertEquals("ui v2", threads.poll(5, TimeUnit.SECONDS));
        } finally {
            ui.shutdownNow();
        }
    }

    @Test
    void anExceptionInACallbackIsKeptNotThrown() {
        try (Instance counter = LIB.create("counter")) {
            counter.subscribe(v -> {
                throw new IllegalStateException("boom at v" + v);
            });
            counter.send("increase");
            assertEquals(1, counter.version());
            assertEquals(1, counter.callbackErrors().size());
            assertEquals("boom at v1", counter.callbackErrors().get(0).getMessage());
        }
    }

    @Test
    void aCallbackMaySendToItsOwnInstanceAndUnsubscribeItself() {
        List<Long> heard = new CopyOnWriteArrayList<>();
        try (Instance counter = LIB.create("counter")) {
            AtomicReference<Subscription> self = new AtomicReference<>();
            self.set(counter.subscribe(v -> {
                heard.add(v);
                if (v < 3) {
                    counter.send("increase"); // re-entering: reported after this callback returns
                } else {
                    self.get().unsubscribe();
                }
            }));
            counter.send("increase");
            assertEquals(List.of(1L, 2L, 3L), heard);
            assertEquals(3, counter.state().path("value").asInt());
            assertFalse(self.get().isActive());
            counter.send("increase");
            assertEquals(3, heard.size());
            System.gc(); // the callback that ended itself stays reachable while it ran
            assertTrue(counter.callbackErrors().isEmpty(), counter.callbackErrors().toString());
        }
    }

    /** A callback that makes its own round trip, inside the round trip that caused it, on the same thread. */
    @Test
    void aRoundTripInsideARoundTripGetsItsOwnState() {
        try (Instance counter = LIB.create("counter"); Instance answer = LIB.create("answer")) {
            List<Instance.StateJson> inner = new CopyOnWriteArrayList<>();
            String longText = "x".repeat(100_000); // the inner state outgrows the thread's first buffer
            counter.subscribe(v -> inner.add(answer.sendAndReadJson(
                    "{\"answerChanged\":{\"text\":\"" + longText + v + "\"}}")));
            for (int i = 1; i <= 3; i++) {
                Instance.StateJson outer = counter.sendAndReadJson("\"increase\"");
                assertEquals(new Instance.StateJson("{\"value\":" + i + ",\"isReset\":false,\"alert\":null}", i), outer);
            }
            assertEquals(3, inner.size());
            assertTrue(inner.get(2).json().contains(longText + "3"), inner.get(2).json().substring(0, 40));
        }
    }

    @Test
    void closingFromInsideACallback() {
        Instance counter = LIB.create("counter");
        counter.subscribe(v -> counter.close());
        counter.send("increase");
        assertTrue(counter.isClosed());
        assertTrue(counter.callbackErrors().isEmpty(), counter.callbackErrors().toString());
        counter.close();
    }

    @Test
    void subscribersHearTheGoto() {
        List<Long> heard = new CopyOnWriteArrayList<>();
        try (Instance counter = LIB.create("counter", new CreateOptions().history(5))) {
            counter.subscribe(heard::add);
            counter.send("increase");
            counter.goTo(0);
        }
        assertEquals(List.of(1L, 2L), heard);
    }

    @Test
    void manyCallbacksCollectedByTheGcStayAlive() {
        try (Instance counter = LIB.create("counter")) {
            List<Long> heard = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 50; i++) {
                counter.subscribe(heard::add);
            }
            System.gc();
            counter.send("increase");
            assertEquals(50, heard.size());
        }
    }
}
