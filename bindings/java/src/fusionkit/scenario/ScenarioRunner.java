package fusionkit.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import fusionkit.FusionException;
import fusionkit.HostEvent;
import fusionkit.Instance;
import fusionkit.InvalidArgumentException;
import fusionkit.Library;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Runs scenario files (docs/scenarios.md) through the Java package, as `fusion test` and
 * Python's fusionkit.scenario do, with the same comparison rules ({@link Comparison}) and
 * the same verdict for every file: one that is not a valid scenario (not JSON as the
 * library reads it, a key unknown or of the wrong kind) fails at "load", with a message
 * naming what is wrong, as Python's does.
 * {@code java fusionkit.scenario.ScenarioRunner examples/scenarios} prints a line per
 * scenario, then "N passed, N failed", and exits 1 when one failed.
 */
public final class ScenarioRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ACTIONS = ScenarioFile.ACTION_KEYS;
    /** 2^64: fk_advance_clock takes the nanoseconds as a uint64_t. */
    private static final double U64_LIMIT = 18446744073709551616.0;

    private ScenarioRunner() {
    }

    /** The verdict: where it failed ("step 4 (send …)", "create", "at the end", "load") and each difference. */
    public record Result(String name, Path path, boolean passed, String step, List<String> failures) {
        public String report() {
            String title = path.getFileName() + (name.equals(path.getFileName().toString()) ? "" : ": " + name);
            StringBuilder out = new StringBuilder((passed ? "PASS " : "FAIL ") + title);
            if (!passed) {
                out.append("\n  ").append(step).append(':');
                failures.forEach(line -> out.append("\n    ").append(line));
            }
            return out.toString();
        }
    }

    /** The *.scenario.json files of folders and files, sorted. */
    public static List<Path> collect(Path... roots) throws IOException {
        List<Path> found = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isDirectory(root)) {
                try (Stream<Path> paths = Files.walk(root)) {
                    paths.filter(p -> p.getFileName().toString().endsWith(".scenario.json")).sorted().forEach(found::add);
                }
            } else {
                found.add(root);
            }
        }
        return found;
    }

    public static void main(String[] args) throws IOException {
        Library library = Library.load();
        int passed = 0;
        int failed = 0;
        for (Path path : collect(Stream.of(args).map(Path::of).toArray(Path[]::new))) {
            Result result;
            try {
                result = run(path, library);
            } catch (RuntimeException error) {
                // A safety net: no file stops the others (every malformed one is a "load" failure).
                result = new Result(path.getFileName().toString(), path, false, "run", List.of("the runner failed: " + error));
            }
            System.out.println(result.report());
            if (result.passed()) {
                passed++;
            } else {
                failed++;
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    /**
     * Runs one scenario file on a new instance of its feature, then closes it. A file that is
     * not a valid scenario, or cannot be read, gives a failed result at "load" saying why.
     */
    public static Result run(Path path, Library library) {
        String where = path.getFileName().toString();
        JsonNode scenario;
        try {
            scenario = ScenarioFile.read(Files.readAllBytes(path), where);
        } catch (ScenarioFile.Malformed error) {
            return new Result(where, path, false, "load", List.of(error.getMessage()));
        } catch (IOException error) {
            return new Result(where, path, false, "load", List.of(where + ": cannot read it: " + error));
        }
        return new Run(path, scenario, library).run();
    }

    private static final class Run {
        final Path path;
        final JsonNode scenario;
        final Library library;
        final String name;
        final ObjectNode options;
        final boolean manualClock;
        final boolean hostRequests;
        final List<HostEvent> open = new ArrayList<>();
        Instance instance;

        Run(Path path, JsonNode scenario, Library library) {
            this.path = path;
            this.scenario = scenario;
            this.library = library;
            String given = scenario.path("name").asText("");
            this.name = given.isEmpty() ? path.getFileName().toString() : given;
            this.options = JSON.createObjectNode().put("clock", "manual");
            if (scenario.path("options").isObject()) {
                this.options.setAll((ObjectNode) scenario.get("options"));
            }
            this.manualClock = options.path("clock").asText().equals("manual");
            this.hostRequests = options.path("requests").asText().equals("host");
        }

        Result result(String where, List<String> lines) {
            return new Result(name, path, where == null, where, lines);
        }

        Result run() {
            String feature = scenario.get("feature").asText();
            int slash = feature.indexOf('/');
            if (slash >= 0) {
                String wanted = feature.substring(0, slash);
                String actual = library.summary().path("library").path("name").asText();
                if (!wanted.equals(actual)) {
                    return result("create", List.of("feature: \"" + feature + "\" is in the library \"" + wanted
                            + "\", but the library is \"" + actual + "\""));
                }
                feature = feature.substring(slash + 1);
            }
            try {
                instance = library.create(feature, options.toString());
            } catch (FusionException error) {
                return result("create", List.of("refused: " + refusal(error)));
            }
            try {
                drain();
                int number = 0;
                for (JsonNode step : scenario.get("steps")) {
                    number++;
                    List<String> lines = step(step);
                    if (!lines.isEmpty()) {
                        return result(label(number, step), lines);
                    }
                }
                if (scenario.path("nothingPending").asBoolean(true)) {
                    List<String> lines = nothingPending();
                    if (!lines.isEmpty()) {
                        return result("at the end", lines);
                    }
                }
                return result(null, List.of());
            } finally {
                instance.close();
            }
        }

        static String label(int number, JsonNode step) {
            String what = "check";
            for (String action : ACTIONS) {
                if (step.has(action)) {
                    JsonNode argument = step.get(action);
                    if (action.equals("respond") || action.equals("fail")) {
                        what = action + " " + argument.path("kind").asText();
                    } else if (action.equals("advance")) {
                        what = "advance " + ScenarioFile.seconds(argument.doubleValue());
                    } else {
                        what = action + " " + Comparison.show(argument);
                    }
                }
            }
            return "step " + number + " (" + what + ")";
        }

        void drain() {
            if (!hostRequests) {
                return;
            }
            for (Optional<HostEvent> event = instance.pollRequest(); event.isPresent(); event = instance.pollRequest()) {
                HostEvent found = event.get();
                if (found.isRequest()) {
                    open.add(found);
                } else if (found.isCancel()) {
                    open.removeIf(request -> request.id() == found.id());
                }
            }
        }

        void settle() {
            if (manualClock) {
                instance.advanceClockNanos(0);
            }
        }

        List<String> step(JsonNode step) {
            Instance.Snapshot before = instance.snapshot();
            FusionException refusal = null;
            try {
                act(step);
            } catch (FusionException error) {
                refusal = error;
            } catch (IllegalStateException failure) {
                return List.of(failure.getMessage());
            }
            List<String> lines = new ArrayList<>();
            try {
                settle();
                drain();
            } catch (FusionException error) {
                return List.of("settling: " + refusal(error));
            }
            Instance.Snapshot after = instance.snapshot();
            String wanted = step.hasNonNull("error") ? step.get("error").asText() : null;
            String got = refusal == null ? null : refusal.status();
            if (!java.util.Objects.equals(wanted, got)) {
                String why = refusal != null && !refusal.message().isEmpty() ? " (" + refusal.message() + ")" : "";
                lines.add("error: expected " + quoted(wanted) + ", got " + quoted(got) + why);
            }
            if (refusal != null && after.version() != before.version()) {
                lines.add("version: expected " + before.version() + ", got " + after.version());
            }
            if (step.has("expect")) {
                Comparison.expected(step.get("expect"), after.state()).forEach(d -> lines.add(d.line()));
            }
            if (step.has("state")) {
                Comparison.exact(step.get("state"), after.state()).forEach(d -> lines.add(d.line()));
            }
            if (step.has("requests")) {
                List<String> kinds = open.stream().map(HostEvent::kind).toList();
                List<String> expectedKinds = new ArrayList<>();
                step.get("requests").forEach(kind -> expectedKinds.add(kind.asText()));
                if (!expectedKinds.equals(kinds)) {
                    lines.add("requests: expected " + JSON.valueToTree(expectedKinds) + ", got " + JSON.valueToTree(kinds));
                }
            }
            if (scenario.path("exhaustive").asBoolean(false)) {
                List<Comparison.Place> named = new ArrayList<>(Comparison.named(step.get("expect")));
                if (step.has("state")) {
                    named.add(Comparison.Place.ROOT);
                }
                for (Comparison.Difference change : Comparison.changes(before.state(), after.state())) {
                    if (!Comparison.isNamed(change.place(), named)) {
                        lines.add(change.place().shown() + " changed (" + Comparison.show(change.expected()) + " → "
                                + Comparison.show(change.actual()) + ") but the step does not name it");
                    }
                }
            }
            return lines;
        }

        void act(JsonNode step) {
            if (step.has("send")) {
                instance.sendJson(step.get("send").toString());
            } else if (step.has("advance")) {
                advance(step.get("advance").doubleValue());
            } else if (step.has("goto")) {
                // 0 to 2^64 - 1 (checked when read): the uint64_t's bits, as C takes them.
                instance.goTo(step.get("goto").bigIntegerValue().longValue());
            } else if (step.has("respond") || step.has("fail")) {
                String action = step.has("respond") ? "respond" : "fail";
                JsonNode answer = step.get(action);
                String kind = answer.path("kind").asText();
                JsonNode payload = answer.get("payload");
                HostEvent request = open.stream()
                        .filter(r -> kind.equals(r.kind()) && (payload == null
                                || (r.payload() != null && Comparison.equal(payload, r.payload()))))
                        .findFirst().orElse(null);
                if (request == null) {
                    String which = quoted(kind) + " request" + (payload == null ? "" : " with the payload " + payload);
                    List<String> openOnes = open.stream().map(r -> r.kind() + " " + Comparison.show(r.payload())).toList();
                    throw new IllegalStateException(action + ": no open " + which + " to answer (open: "
                            + (openOnes.isEmpty() ? "none" : String.join(", ", openOnes)) + ")");
                }
                if (action.equals("respond")) {
                    instance.respondJson(request.id(), answer.path("result").toString());
                } else {
                    instance.failRequest(request.id(), answer.path("message").asText());
                }
                open.removeIf(r -> r.id() == request.id());
            }
        }

        /**
         * Moves the clock by {@code seconds}, as nanoseconds rounded to the nearest one
         * (half away from zero, as `fusion test` rounds); seconds whose nanoseconds do not
         * fit fk_advance_clock's uint64_t are refused, as the other runners refuse them.
         */
        void advance(double seconds) {
            double nanoseconds = seconds * 1e9;
            if (nanoseconds >= U64_LIMIT) {
                throw new InvalidArgumentException("seconds " + ScenarioFile.number(seconds)
                        + " is out of range: the clock moves by at most 2^64 - 1 nanoseconds", "FK_ERR_INVALID_ARGUMENT",
                        "fk_advance_clock");
            }
            if (nanoseconds < 0x1p63) {
                instance.advanceClockNanos(Math.round(nanoseconds));
            } else {
                // 2^63 ns or more (a whole number, as every double that large is): Instance
                // takes a Java long, the library a uint64_t, so its bits go straight to C.
                long bits = new BigDecimal(nanoseconds).toBigInteger().longValue();
                library.check(library.c().fk_advance_clock(instance.handle(), bits));
            }
        }

        List<String> nothingPending() {
            Instance.Pending pending;
            try {
                settle();
                pending = instance.pending();
            } catch (FusionException error) {
                return List.of("pending: " + refusal(error));
            }
            List<String> lines = new ArrayList<>();
            if (pending.effects() != 0) {
                lines.add("pending.effects: expected 0, got " + pending.effects());
            }
            if (pending.requests() != 0) {
                lines.add("pending.requests: expected 0, got " + pending.requests());
            }
            return lines;
        }

        static String quoted(String text) {
            return text == null ? "null" : JSON.valueToTree(text).toString();
        }

        static String refusal(FusionException error) {
            return error.status() == null ? error.message() : error.status() + ": " + error.message();
        }
    }
}
