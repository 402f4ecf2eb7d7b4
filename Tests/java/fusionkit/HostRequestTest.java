package fusionkit;

import static fusionkit.Fixtures.ANSWERS;
import static fusionkit.Fixtures.LIB;
import static fusionkit.Fixtures.tree;
import static fusionkit.Fixtures.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HostRequestTest {
    private static HostEvent take(BlockingQueue<HostEvent> events) throws InterruptedException {
        HostEvent event = events.poll(5, TimeUnit.SECONDS);
        assertTrue(event != null, "an event within 5 s");
        return event;
    }

    @Test
    void answeredOutOfOrderByAHandler() throws InterruptedException {
        BlockingQueue<HostEvent> events = new LinkedBlockingQueue<>();
        try (Instance profile = LIB.create("profile")) {
            profile.setRequestHandler(events::add);
            profile.send("loadAllProfiles");
            List<HostEvent> requests = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                requests.add(take(events));
            }
            assertTrue(requests.stream().allMatch(e -> e.isRequest() && e.payload().equals(tree(Map.of("profileID", "baby-1")))));
            assertEquals(ANSWERS.keySet(), requests.stream().map(HostEvent::kind).collect(Collectors.toSet()));
            HostEvent pet = requests.stream().filter(e -> e.kind().equals("fetchPet")).findFirst().orElseThrow();
            InvalidResponseException bad = assertThrows(InvalidResponseException.class, () -> profile.respond(pet.id(), Map.of("name", 3)));
            assertTrue(bad.message().contains("$.name: expected a string"), bad.message());
            List<HostEvent> reversed = new ArrayList<>(requests);
            Collections.reverse(reversed); // answered in another order than asked
            for (HostEvent event : reversed) {
                profile.respond(event.id(), ANSWERS.get(event.kind()));
            }
            waitUntil(() -> !profile.state().path("isLoading").asBoolean(), "the four answers to land");
            assertEquals(tree(Fixtures.PET), profile.state().path("pet"));
            assertEquals(tree(Fixtures.SCHOOL), profile.state().path("school"));
            assertThrows(UnknownRequestException.class, () -> profile.respond(pet.id(), Fixtures.PET));

            // Load again; one fetch fails, the three others are cancelled.
            profile.send("retryTapped");
            List<HostEvent> again = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                again.add(take(events));
            }
            HostEvent family = again.stream().filter(e -> e.kind().equals("fetchFamily")).findFirst().orElseThrow();
            profile.failRequest(family.id(), "the server is down");
            Set<Long> cancelled = new java.util.HashSet<>();
            for (int i = 0; i < 3; i++) {
                HostEvent cancel = take(events);
                assertTrue(cancel.isCancel() && cancel.kind() == null, cancel.toString());
                cancelled.add(cancel.id());
            }
            assertEquals(again.stream().map(HostEvent::id).filter(id -> id != family.id()).collect(Collectors.toSet()), cancelled);
            waitUntil(() -> !profile.state().path("error").isNull(), "the error");
            assertEquals("Could not load the family profile: the server is down", profile.state().path("error").asText());
        }
    }

    @Test
    void polledThenCancelledAtClose() throws InterruptedException {
        Instance profile = LIB.create("profile", new CreateOptions().hostRequests());
        assertTrue(profile.pollRequest().isEmpty());
        profile.send("loadAllProfiles");
        List<HostEvent> polled = new ArrayList<>();
        waitUntil(() -> {
            profile.pollRequest().ifPresent(polled::add);
            return polled.size() == 4;
        }, "four polled requests");
        assertTrue(polled.stream().allMatch(HostEvent::isRequest));
        List<HostEvent> told = new CopyOnWriteArrayList<>();
        profile.setRequestHandler(told::add);
        profile.close();
        assertEquals(polled.stream().map(HostEvent::id).collect(Collectors.toSet()),
                told.stream().map(HostEvent::id).collect(Collectors.toSet()));
        assertTrue(told.stream().allMatch(HostEvent::isCancel));
    }

    @Test
    void replacingAndRemovingTheHandler() {
        List<HostEvent> first = new CopyOnWriteArrayList<>();
        List<HostEvent> second = new CopyOnWriteArrayList<>();
        try (Instance profile = LIB.create("profile", new CreateOptions().manualClock())) {
            profile.setRequestHandler(first::add);
            profile.setRequestHandler(null);
            profile.send("loadAllProfiles");
            profile.advanceClockNanos(0);
            assertTrue(first.isEmpty());
            profile.setRequestHandler(second::add);
            assertEquals(4, second.size());
            assertTrue(profile.pollRequest().isEmpty());
            assertEquals(new Instance.Pending(4, 4), profile.pending());
            BusyException busy = assertThrows(BusyException.class, profile::checkpoint);
            assertTrue(busy.message().length() > 0);
        }
    }

    @Test
    void aHandlerMayAnswerAtOnce() throws InterruptedException {
        try (Instance profile = LIB.create("profile")) {
            profile.setRequestHandler(event -> {
                if (event.isRequest()) {
                    profile.respond(event.id(), ANSWERS.get(event.kind()));
                }
            });
            profile.send("loadAllProfiles");
            waitUntil(() -> !profile.state().path("isLoading").asBoolean(), "answers given inside the handler");
            assertEquals(tree(Fixtures.PET), profile.state().path("pet"));
            assertTrue(profile.callbackErrors().isEmpty(), profile.callbackErrors().toString());
        }
    }

    @Test
    void answeredFromOtherThreadsInAnyOrder() throws Exception {
        try (Instance profile = LIB.create("profile", new CreateOptions().manualClock().hostRequests())) {
            profile.send("loadAllProfiles");
            profile.advanceClockNanos(0);
            List<HostEvent> polled = new ArrayList<>();
            for (var event = profile.pollRequest(); event.isPresent(); event = profile.pollRequest()) {
                polled.add(event.get());
            }
            assertEquals(4, polled.size());
            List<Thread> threads = new ArrayList<>();
            for (HostEvent event : polled) {
                threads.add(new Thread(() -> profile.respondJson(event.id(), Library.write(ANSWERS.get(event.kind())))));
            }
            Collections.shuffle(threads);
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(false, profile.state().path("isLoading").asBoolean());
            assertEquals(tree(Fixtures.BABY), profile.state().path("babyProfile"));
            assertTrue(profile.pending().isIdle());
        }
    }
}
