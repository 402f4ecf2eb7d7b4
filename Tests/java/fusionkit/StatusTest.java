package fusionkit;

import static fusionkit.Fixtures.LIB;
import static fusionkit.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.ptr.LongByReference;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fk_ status reached through the package (as Tests/abi/c/bad_inputs.c and
 * Tests/python/test_bad_inputs.py do), each the right class with the library's words,
 * and every refused call changes nothing.
 */
class StatusTest {
    static Instance counter;   // at value 2
    static Instance answer;    // with "blue" typed
    static Instance dead;      // closed
    static Instance profile;   // manual clock, host requests, one request open

    @BeforeAll
    static void world() {
        counter = LIB.create("counter");
        counter.send("increase");
        counter.send("increase");
        answer = LIB.create("answer");
        answer.send("answerChanged", Map.of("text", "blue"));
        dead = LIB.create("counter");
        dead.close();
        profile = LIB.create("profile", new CreateOptions().manualClock().hostRequests());
        profile.send("loadAllProfiles");
        profile.advanceClockNanos(0);
    }

    @AfterAll
    static void closeAll() {
        Stream.of(counter, answer, profile).forEach(Instance::close);
    }

    static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    static Stream<Arguments> rows() {
        byte[] notUtf8 = bytes('"', 0xc3, 0x28, '"');
        return Stream.of(
                row("create: NULL feature", NullArgumentException.class, List.of("feature", "NULL"),
                        () -> LIB.check(LIB.c().fk_create(null, new SizeT(0), null, new SizeT(0), new LongByReference()))),
                row("send: destroyed instance", InvalidHandleException.class, List.of("not a live instance"),
                        () -> dead.send("increase")),
                row("send: made-up handle 42", InvalidHandleException.class, List.of("instance 42 "),
                        () -> LIB.check(LIB.c().fk_send(42, bytes('"', 'a', '"'), new SizeT(3)))),
                row("send: invalid UTF-8", InvalidUtf8Exception.class, List.of("UTF-8", "byte 1"),
                        () -> LIB.check(LIB.c().fk_send(counter.handle(), notUtf8, new SizeT(notUtf8.length)))),
                row("send: empty input", MalformedJsonException.class, List.of("empty"), () -> counter.sendJson("")),
                row("send: truncated JSON", MalformedJsonException.class, List.of("line 1, column 13", "end of input"),
                        () -> counter.sendJson("{\"increase\":")),
                row("send: nesting 100000 deep", MalformedJsonException.class, List.of("nesting deeper than"),
                        () -> counter.sendJson("[".repeat(100_000) + "]".repeat(100_000))),
                row("create: unknown feature", UnknownFeatureException.class, List.of("\"teleporter\"", "counter", "answer"),
                        () -> LIB.create("teleporter")),
                row("send: unknown input case", UnknownInputException.class,
                        List.of("\"jump\"", "increase, decrease, reset, show, alertDismissed"), () -> counter.send("jump")),
                row("send: a number is not an input", InvalidInputException.class, List.of("case name", "found a number"),
                        () -> counter.sendJson("42")),
                row("send: field of the wrong type", InvalidInputException.class,
                        List.of("\"answerChanged\"", "\"text\"", "expected a string, found a number"),
                        () -> answer.send("answerChanged", Map.of("text", 5))),
                row("create: state missing a field", InvalidStateException.class, List.of("missing field \"isReset\""),
                        () -> LIB.create("counter", new CreateOptions().state(json("{\"value\":3}")))),
                row("options: unknown key", InvalidArgumentException.class, List.of("\"sead\"", "state, seed, clock"),
                        () -> LIB.create("counter", "{\"sead\":1}")),
                row("unsubscribe: unknown subscription", UnknownSubscriptionException.class, List.of("12345"),
                        () -> LIB.check(LIB.c().fk_unsubscribe(counter.handle(), 12345))),
                row("respond: unknown request", UnknownRequestException.class, List.of("999"),
                        () -> profile.respondJson(999, "{}")),
                row("respond: a result of the wrong shape", InvalidResponseException.class, List.of("expected"),
                        () -> profile.respondJson(firstOpenRequest(), "{\"name\":3}")),
                row("send: over the length limit", LimitExceededException.class, List.of("FK_LIMIT_LENGTH"), () -> {
                    long old = LIB.limit(Library.LIMIT_LENGTH, 16);
                    try {
                        counter.sendJson("{\"increase\":{},\"padding\":\"xxxxxxxxxxxxxxxxxxxx\"}");
                    } finally {
                        LIB.limit(Library.LIMIT_LENGTH, old);
                    }
                }),
                row("checkpoint: a host request open", BusyException.class, List.of(), () -> profile.checkpoint()),
                // A Java String holding half a surrogate pair has no UTF-8 form: refused before
                // the call, wherever a String becomes the library's text (not sent as '?').
                row("send: a lone surrogate in a field", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> answer.send("answerChanged", Map.of("text", "a\uD800b"))),
                row("send: a lone surrogate in JSON text", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> answer.sendJson("{\"answerChanged\":{\"text\":\"\uDC00\"}}")),
                row("send: a lone surrogate, sent and read", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> answer.sendAndRead("answerChanged", Map.of("text", "ok?\uD83D"))),
                row("send: a lone surrogate in a JSON tree", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> answer.send(Fixtures.tree(Map.of("answerChanged", Map.of("text", "\uDE00\uD83D"))))),
                row("send: a lone surrogate in a typed input", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> answer.send(new fusion_examples.FusionExamples.AnswerInput.AnswerChanged("\uD800"))),
                row("send: a lone surrogate as the case name", InvalidUtf8Exception.class, LONE_SURROGATE,
                        () -> counter.send("increase\uD800")),
                row("create: a lone surrogate in the feature", InvalidUtf8Exception.class, List.of("feature", "U+D800"),
                        () -> LIB.create("count\uD800er")),
                row("create: a lone surrogate in the options", InvalidUtf8Exception.class, List.of("the options", "U+DFFF"),
                        () -> LIB.create("wifi", new CreateOptions().settings(Map.of("\uDFFF", false)))),
                row("feature: a lone surrogate in the name", InvalidUtf8Exception.class, List.of("feature", "U+DBFF"),
                        () -> LIB.feature("\uDBFF")),
                row("respond: a lone surrogate in the result", InvalidUtf8Exception.class, List.of("the result", "U+D800"),
                        () -> profile.respond(firstOpenRequest(), Map.of("name", "Du\uD800bu", "species", "cat", "age", 4))),
                row("fail: a lone surrogate in the message", InvalidUtf8Exception.class, List.of("the message", "U+DC00"),
                        () -> profile.failRequest(firstOpenRequest(), "off\uDC00line")));
    }

    static final List<String> LONE_SURROGATE = List.of("the input is not valid UTF-8", "unpaired UTF-16 surrogate");

    static long openRequest;

    static long firstOpenRequest() {
        if (openRequest == 0) {
            openRequest = profile.pollRequest().orElseThrow().id();
        }
        return openRequest;
    }

    static Arguments row(String name, Class<? extends FusionException> expected, List<String> words, Executable call) {
        return Arguments.of(name, expected, words, call);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void refusedWithTheLibrarysWordsAndNothingChanges(String name, Class<? extends FusionException> expected,
                                                       List<String> words, Executable call) {
        Instance.Snapshot counterBefore = counter.snapshot();
        Instance.Snapshot answerBefore = answer.snapshot();
        Instance.Snapshot profileBefore = profile.snapshot();
        FusionException error = assertThrows(FusionException.class, call);
        assertSame(expected, error.getClass(), name + ": " + error);
        for (String word : words) {
            assertTrue(error.message().contains(word), name + ": \"" + word + "\" not in: " + error.message());
        }
        assertEquals(LIB.statusName(error.code()), error.status());
        assertEquals(error.status() + ": " + error.message(), error.getMessage());
        assertEquals(counterBefore, counter.snapshot(), name);
        assertEquals(answerBefore, answer.snapshot(), name);
        assertEquals(profileBefore, profile.snapshot(), name);
    }

    @Test
    void everyRowOfTheTableReachesItsOwnStatus() {
        Set<Integer> reached = rows().map(row -> codeOf((Class<?>) row.get()[1])).collect(Collectors.toSet());
        // FK_ERR_INTERNAL and FK_ERR_UNSETTLED cannot be provoked with the example library;
        // their classes are checked below, as every status's is.
        Set<Integer> all = new HashSet<>(Arrays.asList(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16));
        assertEquals(all, reached);
    }

    private static int codeOf(Class<?> type) {
        try {
            return type.getField("CODE").getInt(null);
        } catch (ReflectiveOperationException error) {
            throw new AssertionError(error);
        }
    }

    @Test
    void everyStatusHasItsClassNamedAsTheLibraryNamesIt() {
        for (int code = 1; code <= 19; code++) {
            String status = LIB.statusName(code);
            FusionException error = FusionException.forStatus(code, status, "words", "fk_x");
            assertEquals(code, codeOf(error.getClass()), status);
            assertEquals(code, error.code());
            String camel = Arrays.stream(status.substring("FK_ERR_".length()).split("_"))
                    .map(word -> word.charAt(0) + word.substring(1).toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining());
            assertEquals(camel + "Exception", error.getClass().getSimpleName(), status);
            assertEquals("fk_x", error.function());
        }
        FusionException newer = FusionException.forStatus(20, LIB.statusName(20), "later", null);
        assertSame(FusionException.class, newer.getClass());
        assertEquals("FK_ERR_UNKNOWN_STATUS", newer.status());
        assertInstanceOf(RuntimeException.class, newer);
    }
}
