package fusionkit.scenario;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reading a scenario file as `fusion test` and Python's fusionkit.scenario read it
 * (docs/scenarios.md, docs/scenario.schema.json): JSON as the library's parser takes it
 * (UTF-8, one value and nothing after it, no key twice in an object, no NaN, numbers a
 * double can hold, no unpaired surrogate in a \\u escape, nesting at most 512 levels deep),
 * then every key checked, with the Python runner's messages: {@code
 * counter.scenario.json: step 3: "advance" must be a number of seconds (0 or more), not -1}.
 */
final class ScenarioFile {
    /** The deepest nesting the library's JSON parser (and `fusion test`) reads: FK_LIMIT_JSON_DEPTH's most. */
    static final int MAX_DEPTH = 512;
    static final List<String> TOP_KEYS = List.of("$schema", "name", "note", "recorded", "feature", "options", "exhaustive",
            "nothingPending", "steps");
    static final List<String> OPTION_KEYS = List.of("state", "stateVersion", "seed", "clock", "requests", "settings", "history",
            "user");
    static final List<String> ACTION_KEYS = List.of("send", "advance", "respond", "fail", "goto");
    static final List<String> CHECK_KEYS = List.of("expect", "state", "error", "requests", "note");
    private static final Pattern STATUS_NAME = Pattern.compile("FK_ERR_[A-Z_]+");
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ScenarioFile() {
    }

    /** A file that is not a valid scenario; the message names the file, the step and the key. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    /** Reads and checks a scenario file's bytes; {@code where} is its name, for messages. */
    static JsonNode read(byte[] bytes, String where) throws Malformed {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException error) {
            throw new Malformed(where + ": not UTF-8 text (" + error + ")");
        }
        JsonNode document;
        try {
            document = parse(text);
        } catch (Malformed error) {
            throw new Malformed(where + ": not JSON: " + error.getMessage());
        }
        check(document, where);
        return document;
    }

    // -- JSON -----------------------------------------------------------------------------

    /** One container being read, with the key its next value goes under. */
    private static final class Open {
        final ContainerNode<?> node;
        String key;

        Open(ContainerNode<?> node) {
            this.node = node;
        }
    }

    /**
     * JSON text as the library's parser reads it, into Jackson's tree. Read token by token
     * (Jackson's streaming parser does not recurse), so that nesting past {@link #MAX_DEPTH}
     * is refused before anything recurses over it.
     */
    static JsonNode parse(String text) throws Malformed {
        try (JsonParser parser = FACTORY.createParser(text)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                throw new Malformed(text.isEmpty() ? "the JSON text is empty" : "the JSON text holds only whitespace");
            }
            Deque<Open> open = new ArrayDeque<>();
            JsonNode root = null;
            while (root == null) {
                JsonNode value;
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        if (open.size() >= MAX_DEPTH) {
                            throw at(parser, "nesting deeper than " + MAX_DEPTH + " levels");
                        }
                        ContainerNode<?> node = token == JsonToken.START_OBJECT ? NODES.objectNode() : NODES.arrayNode();
                        add(open, node);
                        open.push(new Open(node));
                        token = parser.nextToken();
                        continue;
                    }
                    case END_OBJECT, END_ARRAY -> value = open.pop().node;
                    case FIELD_NAME -> {
                        String key = scalar(parser, parser.getCurrentName());
                        Open object = open.peek();
                        if (((ObjectNode) object.node).has(key)) {
                            throw at(parser, "the key " + Comparison.show(NODES.textNode(key)) + " appears twice in one object");
                        }
                        object.key = key;
                        token = parser.nextToken();
                        continue;
                    }
                    case VALUE_STRING -> value = NODES.textNode(scalar(parser, parser.getText()));
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> value = number(parser, token);
                    case VALUE_TRUE, VALUE_FALSE -> value = NODES.booleanNode(token == JsonToken.VALUE_TRUE);
                    case VALUE_NULL -> value = NODES.nullNode();
                    default -> throw at(parser, "unexpected " + token);
                }
                if (open.isEmpty()) {
                    root = value;
                } else if (token != JsonToken.END_OBJECT && token != JsonToken.END_ARRAY) {
                    add(open, value);
                }
                if (root == null) {
                    token = parser.nextToken();
                    if (token == null) {
                        throw at(parser, "unexpected end of input");
                    }
                }
            }
            JsonToken after;
            try {
                after = parser.nextToken();
            } catch (JsonProcessingException error) {
                throw new Malformed("unexpected text after the end of the JSON value (" + error.getOriginalMessage() + ")"
                        + place(error.getLocation()));
            }
            if (after != null) {
                throw at(parser, "unexpected " + parser.getText() + " after the end of the JSON value");
            }
            return root;
        } catch (JsonProcessingException error) {
            throw new Malformed(error.getOriginalMessage() + place(error.getLocation()));
        } catch (IOException error) {
            throw new Malformed(error.toString());
        }
    }

    private static void add(Deque<Open> open, JsonNode value) {
        Open parent = open.peek();
        if (parent == null) {
            return;
        }
        if (parent.node instanceof ObjectNode object) {
            object.set(parent.key, value);
        } else {
            ((ArrayNode) parent.node).add(value);
        }
    }

    /** A string or key: the library refuses a \\u escape that leaves half a surrogate pair. */
    private static String scalar(JsonParser parser, String text) throws Malformed {
        if (hasUnpairedSurrogate(text)) {
            throw at(parser, "unpaired UTF-16 surrogate in \\u escape");
        }
        return text;
    }

    private static boolean hasUnpairedSurrogate(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** A number, as Jackson's tree holds it; one no double can hold (1e400) is refused, as the library refuses it. */
    private static JsonNode number(JsonParser parser, JsonToken token) throws IOException, Malformed {
        String text = parser.getText();
        // More digits than any finite double has before its point: out of range, without
        // making a BigInteger of them.
        boolean tooLong = token == JsonToken.VALUE_NUMBER_INT && text.length() > 400;
        if (!tooLong && token == JsonToken.VALUE_NUMBER_INT) {
            switch (parser.getNumberType()) {
                case INT:
                    return NODES.numberNode(parser.getIntValue());
                case LONG:
                    return NODES.numberNode(parser.getLongValue());
                default:
                    BigInteger value = parser.getBigIntegerValue();
                    if (!Double.isInfinite(value.doubleValue())) {
                        return NODES.numberNode(value);
                    }
            }
        } else if (!tooLong) {
            double value = parser.getDoubleValue();
            if (!Double.isInfinite(value)) {
                return NODES.numberNode(value);
            }
        }
        throw at(parser, "number " + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + " is out of range");
    }

    private static Malformed at(JsonParser parser, String message) {
        return new Malformed(message + place(parser.getTokenLocation()));
    }

    private static String place(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    // -- the scenario ---------------------------------------------------------------------

    /** Checks every key of a scenario read from JSON, as Python's fusionkit.scenario.parse does. */
    static void check(JsonNode document, String where) throws Malformed {
        if (!document.isObject()) {
            throw new Malformed(where + ": a scenario is a JSON object, not " + kind(document));
        }
        for (Iterator<String> keys = document.fieldNames(); keys.hasNext();) {
            String key = keys.next();
            if (!TOP_KEYS.contains(key)) {
                throw new Malformed(where + ": unknown key " + show(key) + " (a scenario has: " + String.join(", ", TOP_KEYS) + ")");
            }
        }
        for (String key : List.of("$schema", "name", "note")) {
            if (document.has(key) && !document.get(key).isTextual()) {
                throw new Malformed(where + ": " + show(key) + " must be a string, not " + kind(document.get(key)));
            }
        }
        if (!document.has("feature")) {
            throw new Malformed(where + ": \"feature\" is required: the feature's name in the library (\"counter\", or \"Lib/counter\")");
        }
        JsonNode feature = document.get("feature");
        if (!feature.isTextual() || feature.asText().isEmpty()) {
            throw new Malformed(where + ": \"feature\" must be a feature's name, not " + kind(feature));
        }
        for (String key : List.of("exhaustive", "nothingPending")) {
            if (document.has(key) && !document.get(key).isBoolean()) {
                throw new Malformed(where + ": " + show(key) + " must be true or false, not " + kind(document.get(key)));
            }
        }
        if (document.has("options")) {
            options(document.get("options"), where);
        }
        if (!document.has("steps")) {
            throw new Malformed(where + ": \"steps\" is required: a list of steps");
        }
        JsonNode steps = document.get("steps");
        if (!steps.isArray()) {
            throw new Malformed(where + ": \"steps\" must be a list of steps, not " + kind(steps));
        }
        int number = 0;
        for (JsonNode step : steps) {
            number++;
            step(step, where + ": step " + number);
        }
    }

    private static void options(JsonNode options, String where) throws Malformed {
        if (!options.isObject()) {
            throw new Malformed(where + ": \"options\" must be an object, not " + kind(options));
        }
        for (Iterator<String> keys = options.fieldNames(); keys.hasNext();) {
            String key = keys.next();
            JsonNode value = options.get(key);
            String bad = switch (key) {
                case "state", "settings", "user" -> value.isObject() ? null : show(key) + " must be an object, not " + kind(value);
                case "seed" -> isU64(value) || isSeedDigits(value) ? null
                        : "\"seed\" must be a whole number from 0 to 2^64-1 (from 2^63 on, its digits as a string), not " + show(value);
                case "stateVersion" -> whole(value) != null && whole(value).signum() > 0 ? null
                        : "\"stateVersion\" must be the state version the state was saved at (1 or more), not " + show(value);
                case "clock" -> isOneOf(value, "manual", "system") ? null
                        : "\"clock\" must be \"manual\" or \"system\", not " + show(value);
                case "requests" -> isOneOf(value, "builtin", "host") ? null
                        : "\"requests\" must be \"builtin\" or \"host\", not " + show(value);
                case "history" -> whole(value) != null && whole(value).signum() >= 0 ? null
                        : "\"history\" must be a whole number of versions to keep, not " + show(value);
                default -> "unknown key " + show(key) + " (the options are: " + String.join(", ", OPTION_KEYS) + ")";
            };
            if (bad != null) {
                throw new Malformed(where + ": options: " + bad);
            }
        }
    }

    private static void step(JsonNode step, String where) throws Malformed {
        if (!step.isObject()) {
            throw new Malformed(where + ": a step is an object, not " + kind(step));
        }
        for (Iterator<String> keys = step.fieldNames(); keys.hasNext();) {
            String key = keys.next();
            if (!ACTION_KEYS.contains(key) && !CHECK_KEYS.contains(key)) {
                throw new Malformed(where + ": unknown key " + show(key) + " (a step does one of " + String.join(", ", ACTION_KEYS)
                        + "; it checks " + String.join(", ", CHECK_KEYS.subList(0, CHECK_KEYS.size() - 1))
                        + "; \"note\" is for people)");
            }
        }
        List<String> actions = new ArrayList<>();
        ACTION_KEYS.stream().filter(step::has).forEach(key -> actions.add(show(key)));
        if (actions.size() > 1) {
            throw new Malformed(where + ": " + String.join(" and ", actions) + " in one step: a step does at most one thing");
        }
        if (step.has("send")) {
            // Any JSON: the library judges it, and a step that expects its refusal says so in
            // "error" (a recording keeps the inputs refused, {} or 5 too).
        } else if (step.has("advance")) {
            JsonNode seconds = step.get("advance");
            if (!seconds.isNumber() || seconds.decimalValue().signum() < 0) {
                throw new Malformed(where + ": \"advance\" must be a number of seconds (0 or more), not " + show(seconds));
            }
        } else if (step.has("respond") || step.has("fail")) {
            answer(step.has("respond") ? "respond" : "fail", step.get(step.has("respond") ? "respond" : "fail"), where);
        } else if (step.has("goto")) {
            JsonNode version = step.get("goto");
            if (!isU64(version)) {
                throw new Malformed(where + ": \"goto\" must be a version number (0 or more) the instance keeps, not " + show(version));
            }
        }
        if (step.has("expect") && !step.get("expect").isObject()) {
            throw new Malformed(where + ": \"expect\" must be an object naming fields of the state, not " + kind(step.get("expect")));
        }
        if (step.has("state") && !step.get("state").isObject()) {
            throw new Malformed(where + ": \"state\" must be the whole state, an object, not " + kind(step.get("state")));
        }
        if (step.has("error")) {
            JsonNode error = step.get("error");
            if (!error.isTextual() || !STATUS_NAME.matcher(error.asText()).matches()) {
                throw new Malformed(where + ": \"error\" must be a status name such as \"FK_ERR_UNKNOWN_INPUT\", not " + show(error));
            }
        }
        if (step.has("requests")) {
            JsonNode requests = step.get("requests");
            boolean kinds = requests.isArray();
            for (JsonNode kind : requests) {
                kinds &= kind.isTextual();
            }
            if (!kinds) {
                throw new Malformed(where + ": \"requests\" must be a list of request kinds such as [\"fetchPet\"], not " + show(requests));
            }
        }
        if (step.has("note") && !step.get("note").isTextual()) {
            throw new Malformed(where + ": \"note\" must be a string, not " + kind(step.get("note")));
        }
    }

    private static void answer(String action, JsonNode answer, String where) throws Malformed {
        String valueKey = action.equals("respond") ? "result" : "message";
        String example = action.equals("respond") ? "{\"kind\": \"fetchPet\", \"result\": {...}}"
                : "{\"kind\": \"fetchFamily\", \"message\": \"offline\"}";
        if (!answer.isObject()) {
            throw new Malformed(where + ": " + show(action) + " must be an object such as " + example + ", not " + kind(answer));
        }
        for (Iterator<String> keys = answer.fieldNames(); keys.hasNext();) {
            String key = keys.next();
            if (!List.of("kind", "payload", "result", "message").contains(key)) {
                throw new Malformed(where + ": " + action + ": unknown key " + show(key) + " (it has kind, " + valueKey
                        + " and, optionally, payload)");
            }
        }
        if (!answer.path("kind").isTextual()) {
            throw new Malformed(where + ": " + action + ": \"kind\" is required: the kind of request to answer, such as \"fetchPet\"");
        }
        if (!answer.has(valueKey)) {
            throw new Malformed(where + ": " + action + ": " + show(valueKey) + " is required");
        }
        if (answer.has("message") && !answer.get("message").isTextual()) {
            throw new Malformed(where + ": " + action + ": \"message\" must be a string, not " + kind(answer.get("message")));
        }
    }

    private static boolean isU64(JsonNode value) {
        BigInteger number = whole(value);
        return number != null && number.signum() >= 0 && number.compareTo(U64_LIMIT) < 0;
    }

    /** A whole number however JSON wrote it (3, 3.0 and 3e0 are one number, as the library
     *  reads its options: fusionkit.h); null for anything else. */
    private static BigInteger whole(JsonNode value) {
        if (value.isIntegralNumber()) {
            return value.bigIntegerValue();
        }
        if (!value.isNumber()) {
            return null;
        }
        try {
            return value.decimalValue().toBigIntegerExact();
        } catch (ArithmeticException fraction) {
            return null;
        }
    }

    /** A seed from 2^63 to 2^64-1 written as a string of digits, as the library takes one. */
    private static boolean isSeedDigits(JsonNode value) {
        if (!value.isTextual() || !value.asText().matches("[0-9]+")) {
            return false;
        }
        BigInteger number = new BigInteger(value.asText());
        return number.compareTo(BigInteger.ONE.shiftLeft(63)) >= 0 && number.compareTo(U64_LIMIT) < 0;
    }

    private static boolean isOneOf(JsonNode value, String... choices) {
        return value.isTextual() && List.of(choices).contains(value.asText());
    }

    // -- words ----------------------------------------------------------------------------

    /** A value as load errors show it: compact JSON, numbers as Python and Swift write them (1e+300). */
    static String show(JsonNode value) {
        return value.isFloatingPointNumber() ? number(value.doubleValue()) : Comparison.show(value);
    }

    static String show(String text) {
        return Comparison.show(NODES.textNode(text));
    }

    /** What a JSON value is, in words: {@code a number (3)}, {@code a string ("x")}, {@code a list}. */
    static String kind(JsonNode value) {
        if (value.isNull()) {
            return "null";
        }
        if (value.isBoolean()) {
            return "a boolean (" + value + ")";
        }
        if (value.isNumber()) {
            return "a number (" + show(value) + ")";
        }
        if (value.isTextual()) {
            return "a string (" + show(value) + ")";
        }
        return value.isArray() ? "a list" : "an object";
    }

    /**
     * A double as Python's repr and Swift's description write it: the fewest digits that
     * read back the same, in positional form from 1e-4 up to 1e16 ({@code 0.5},
     * {@code 2000000000000000.0}), else with an exponent of at least two digits
     * ({@code 1e+300}, {@code 1e-05}).
     */
    static String number(double value) {
        if (value == 0) {
            return 1 / value < 0 ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(value);
        BigDecimal shortest = exact;
        for (int digits = 1; digits <= 17; digits++) {
            BigDecimal rounded = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (rounded.doubleValue() == value) {
                shortest = rounded;
                break;
            }
        }
        shortest = shortest.stripTrailingZeros();
        String digits = shortest.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        String sign = value < 0 ? "-" : "";
        if (exponent >= -4 && exponent < 16) {
            String plain = shortest.abs().toPlainString();
            return sign + (plain.contains(".") ? plain : plain + ".0");
        }
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        int magnitude = Math.abs(exponent);
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + magnitude;
    }

    /** An advance step's seconds as labels write them: whole seconds below 1e15 as an integer, others as {@link #number}. */
    static String seconds(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : number(value);
    }
}
