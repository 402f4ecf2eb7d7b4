package fusionkit;

import static fusionkit.Fixtures.LIB;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Java Strings as the UTF-8 the library reads (Library.utf8, behind every call that takes
 * text): the same bytes as String.getBytes for every String that has a UTF-8 form, and
 * InvalidUtf8Exception, naming the surrogate and where it is, for one that holds half a
 * surrogate pair, which getBytes would silently turn into '?'.
 */
class TextTest {
    @Test
    void textWithAUtf8FormIsEncodedAsGetBytesEncodesIt() {
        for (String text : List.of("", "increase", "why?", "???", "{\"answerChanged\":{\"text\":\"is it?\"}}", "café",
                "세 번째?", "\uD83D\uDE00", "a\uD83D\uDE00?b", "\uD83D\uDE00\uD83D\uDE00", "\u007F\u0080\u07FF\u0800\uFFFF",
                "x".repeat(10_000) + "?", "é".repeat(5_000) + "\uDBFF\uDFFF")) {
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), Library.utf8(text, "the input", "fk_send"), text);
        }
    }

    @Test
    void halfASurrogatePairIsRefusedWhereverItIs() {
        Map<String, Integer> lone = Map.of(
                "\uD800", 0, "a\uD800b", 1, "?\uDC00", 1, "ok?\uD83D", 3, "\uDE00\uD83D", 0, "\uD83D\uDE00\uDE00", 2,
                "é\uD800", 1, "é".repeat(100) + "\uDFFF", 100, "x".repeat(10_000) + "\uD800" + "?", 10_000,
                "\uD83D\uD83D\uDE00", 0);
        lone.forEach((text, index) -> {
            InvalidUtf8Exception error = assertThrows(InvalidUtf8Exception.class, () -> Library.utf8(text, "the input", "fk_send"));
            assertEquals(String.format("the input is not valid UTF-8: an unpaired UTF-16 surrogate (U+%04X) at index %d has no "
                    + "UTF-8 form", (int) text.charAt(index), index), error.message());
            assertEquals("FK_ERR_INVALID_UTF8", error.status());
            assertEquals(LIB.statusName(InvalidUtf8Exception.CODE), error.status());
            assertEquals(InvalidUtf8Exception.CODE, error.code());
            assertEquals("fk_send", error.function());
        });
    }

    /** ASCII text is searched eight bytes at a time: a '?' and a lone surrogate are told apart at every position. */
    @Test
    void everyPositionOfAsciiTextIsSeen() {
        for (int length = 1; length <= 40; length++) {
            for (int at = 0; at < length; at++) {
                StringBuilder text = new StringBuilder("a".repeat(length));
                text.setCharAt(at, '?');
                if (at > 2) {
                    text.setCharAt(at - 3, '?');
                }
                assertArrayEquals(text.toString().getBytes(StandardCharsets.UTF_8), Library.utf8(text.toString(), "the input", "fk_send"));
                text.setCharAt(at, '\uDC00');
                String lone = text.toString();
                InvalidUtf8Exception error = assertThrows(InvalidUtf8Exception.class, () -> Library.utf8(lone, "the input", "fk_send"));
                assertTrue(error.message().contains("at index " + at + " "), length + ", " + at + ": " + error.message());
            }
        }
    }

    @Test
    void textWithSurrogatePairsAndQuestionMarksGoesThroughWhole() {
        try (Instance answer = LIB.create("answer")) {
            answer.send("answerChanged", Map.of("text", "why? \uD83D\uDE00"));
            assertEquals("why? \uD83D\uDE00", answer.state().path("answer").asText());
            assertEquals(1, answer.version());
            assertThrows(InvalidUtf8Exception.class, () -> answer.send("answerChanged", Map.of("text", "why? \uD83D")));
            assertEquals("why? \uD83D\uDE00", answer.state().path("answer").asText());
            assertEquals(1, answer.version());
        }
    }
}
