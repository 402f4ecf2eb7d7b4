package fusionkit;

import static fusionkit.Fixtures.LIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ThreadsTest {
    @Test
    void twoThreadsOnOneInstanceLoseNoInput() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Instance counter = LIB.create("counter")) {
            List<Long> heard = new CopyOnWriteArrayList<>();
            counter.subscribe(heard::add);
            List<Callable<Void>> jobs = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                jobs.add(() -> {
                    for (int i = 0; i < 500; i++) {
                        counter.send("increase");
                        counter.sendAndRead("decrease");
                        counter.send("increase");
                        assertTrue(counter.state().path("value").asInt() > 0);
                    }
                    return null;
                });
            }
            for (Future<Void> done : pool.invokeAll(jobs)) {
                done.get();
            }
            assertEquals(1000, counter.state().path("value").asInt());
            assertEquals(3000, counter.version());
            List<Long> ordered = new ArrayList<>(heard);
            ordered.sort(null);
            assertEquals(3000, heard.size());
            assertEquals(ordered.get(0), 1L);
            assertEquals(ordered.get(2999), 3000L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoInstancesOnTwoThreadsKeepTheirOwnStateAndErrors() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Instance a = LIB.create("answer"); Instance b = LIB.create("answer")) {
            Callable<String> typeA = () -> type(a, "alpha");
            Callable<String> typeB = () -> type(b, "beta");
            List<Future<String>> results = pool.invokeAll(List.of(typeA, typeB));
            assertEquals("ok", results.get(0).get());
            assertEquals("ok", results.get(1).get());
            assertEquals("alpha199", a.state().path("answer").asText());
            assertEquals("beta199", b.state().path("answer").asText());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Each thread's refusal carries its own message (fk_last_error_message is per thread). */
    private static String type(Instance instance, String word) {
        for (int i = 0; i < 200; i++) {
            instance.send("answerChanged", Map.of("text", word + i));
            try {
                instance.send("answerChanged", Map.of("text", i));
                return "no refusal";
            } catch (InvalidInputException expected) {
                if (!expected.message().contains("found a number")) {
                    return "another thread's message: " + expected.message();
                }
            }
        }
        return "ok";
    }

    @Test
    void manyInstancesCreatedAndClosedFromSeveralThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<JsonNode>> jobs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                jobs.add(() -> {
                    JsonNode last = null;
                    for (int i = 0; i < 250; i++) {
                        try (Instance counter = LIB.create("counter")) {
                            last = counter.sendAndRead("increase");
                        }
                    }
                    return last;
                });
            }
            for (Future<JsonNode> done : pool.invokeAll(jobs)) {
                assertEquals(1, done.get().path("value").asInt());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
