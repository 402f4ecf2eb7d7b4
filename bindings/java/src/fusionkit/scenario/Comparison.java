package fusionkit.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * How a scenario compares states (docs/rules/scenario-comparison.md): JSON equality, the
 * differences an exact {@code state} and a partial {@code expect} report, and the changes an
 * exhaustive scenario must name. Held to the vectors of Tests/vectors/scenario-comparison,
 * as the Swift and Python runners are.
 */
public final class Comparison {
    private Comparison() {
    }

    /** A place in the state: object keys (String) and array indices (Integer). */
    public record Place(List<Object> parts) {
        static final Place ROOT = new Place(List.of());

        Place with(Object part) {
            List<Object> more = new ArrayList<>(parts);
            more.add(part);
            return new Place(List.copyOf(more));
        }

        /** {@code foundNetworks[2].connectivity}; "" for the whole value. */
        public String text() {
            StringBuilder out = new StringBuilder();
            for (Object part : parts) {
                if (part instanceof Integer index) {
                    out.append('[').append(index).append(']');
                } else {
                    out.append(out.length() == 0 ? "" : ".").append(part);
                }
            }
            return out.toString();
        }

        /** As failure lines name it: "(the state)" for the whole value. */
        public String shown() {
            return parts.isEmpty() ? "(the state)" : text();
        }

        boolean startsWith(Place other) {
            return parts.size() >= other.parts.size() && parts.subList(0, other.parts.size()).equals(other.parts);
        }
    }

    /** A difference or a change at a place: what was expected (or before) and what is (after); null for absent. */
    public record Difference(Place place, JsonNode expected, JsonNode actual) {
        public String line() {
            return place.shown() + ": expected " + show(expected) + ", got " + show(actual);
        }
    }

    /** A value as failure lines write it: compact JSON; "absent" for a field that is not there. */
    public static String show(JsonNode value) {
        return value == null ? "absent" : value.toString();
    }

    /** Numbers by value (1 equals 1.0), booleans only booleans, objects in any key order, arrays in order. */
    public static boolean equal(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!equal(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> entry = it.next();
                JsonNode other = b.get(entry.getKey());
                if (other == null || !equal(entry.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.getNodeType() != b.getNodeType()) {
            return false;
        }
        return a.equals(b);
    }

    /** {@code state}: the whole value exactly; objects key by key in the expected order, then the extra keys. */
    public static List<Difference> exact(JsonNode expected, JsonNode actual) {
        List<Difference> out = new ArrayList<>();
        exact(expected, actual, Place.ROOT, out);
        return out;
    }

    private static void exact(JsonNode expected, JsonNode actual, Place at, List<Difference> out) {
        if (equal(expected, actual)) {
            return;
        }
        if (expected.isObject() && actual.isObject()) {
            expected.fields().forEachRemaining(entry -> {
                JsonNode value = actual.get(entry.getKey());
                if (value == null) {
                    out.add(new Difference(at.with(entry.getKey()), entry.getValue(), null));
                } else {
                    exact(entry.getValue(), value, at.with(entry.getKey()), out);
                }
            });
            actual.fields().forEachRemaining(entry -> {
                if (!expected.has(entry.getKey())) {
                    out.add(new Difference(at.with(entry.getKey()), null, entry.getValue()));
                }
            });
        } else if (expected.isArray() && actual.isArray() && expected.size() == actual.size()) {
            for (int i = 0; i < expected.size(); i++) {
                exact(expected.get(i), actual.get(i), at.with(i), out);
            }
        } else {
            out.add(new Difference(at, expected, actual));
        }
    }

    /** {@code expect}: objects only by the keys named, recursively; anything else as {@link #exact}. */
    public static List<Difference> expected(JsonNode expected, JsonNode actual) {
        List<Difference> out = new ArrayList<>();
        expected(expected, actual, Place.ROOT, out);
        return out;
    }

    private static void expected(JsonNode expected, JsonNode actual, Place at, List<Difference> out) {
        if (!expected.isObject()) {
            exact(expected, actual, at, out);
        } else if (!actual.isObject()) {
            out.add(new Difference(at, expected, actual));
        } else {
            expected.fields().forEachRemaining(entry -> {
                JsonNode value = actual.get(entry.getKey());
                if (value == null) {
                    out.add(new Difference(at.with(entry.getKey()), entry.getValue(), null));
                } else {
                    expected(entry.getValue(), value, at.with(entry.getKey()), out);
                }
            });
        }
    }

    /** What a step changed: into objects only; each other changed value, and each field that came or went, is one. */
    public static List<Difference> changes(JsonNode before, JsonNode after) {
        List<Difference> out = new ArrayList<>();
        changes(before, after, Place.ROOT, out);
        return out;
    }

    private static void changes(JsonNode before, JsonNode after, Place at, List<Difference> out) {
        if (before.isObject() && after.isObject()) {
            before.fields().forEachRemaining(entry -> {
                JsonNode value = after.get(entry.getKey());
                if (value == null) {
                    out.add(new Difference(at.with(entry.getKey()), entry.getValue(), null));
                } else {
                    changes(entry.getValue(), value, at.with(entry.getKey()), out);
                }
            });
            after.fields().forEachRemaining(entry -> {
                if (!before.has(entry.getKey())) {
                    out.add(new Difference(at.with(entry.getKey()), null, entry.getValue()));
                }
            });
        } else if (!equal(before, after)) {
            out.add(new Difference(at, before, after));
        }
    }

    /** Every place an {@code expect} names: each key, at every depth of its objects. */
    public static List<Place> named(JsonNode expect) {
        List<Place> out = new ArrayList<>();
        named(expect, Place.ROOT, out);
        return out;
    }

    private static void named(JsonNode expect, Place at, List<Place> out) {
        if (expect == null || !expect.isObject()) {
            return;
        }
        expect.fields().forEachRemaining(entry -> {
            out.add(at.with(entry.getKey()));
            named(entry.getValue(), at.with(entry.getKey()), out);
        });
    }

    /** A change is named by its own place, a place above it, or a place below it. */
    public static boolean isNamed(Place change, List<Place> named) {
        return named.stream().anyMatch(name -> change.startsWith(name) || name.startsWith(change));
    }
}
