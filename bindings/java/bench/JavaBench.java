package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Java round trip, measured (a benchmark, not a test): the package's Counter round trip
 * (JSON in, JSON out: sendAndReadJson) against the bare JNA call doing the same work (the
 * floor: fk_send_and_read into the same buffer, the text decoded) and against a plain-Java
 * Counter that parses the input and the state and writes the state with the same JSON
 * library (Jackson); then the same for the Wi-Fi state of 1,000 networks. Workloads run in
 * interleaved rounds in one process; times are medians over rounds, ratios medians of the
 * ratios within each round.
 *
 * <pre>bindings/java/bench.sh [LIBRARY] [ROUNDS] [PER_ROUND] [SAMPLES_JSON]</pre>
 *
 * <p>With SAMPLES_JSON, every sample (µs per round trip, per round and workload) is written
 * there too: Benchmarks/java/run.py runs this several times and keeps them in
 * Benchmarks/results/java-bench.json, from which docs/performance.md's block is rendered.
 */
final class JavaBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    interface Work {
        void run(int times) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Library lib = Library.load(Path.of(args[0]));
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        Map<String, Work> work = new LinkedHashMap<>();

        Instance counter = lib.create("counter");
        byte[] increase = "\"increase\"".getBytes(StandardCharsets.UTF_8);
        SizeT increaseLength = new SizeT(increase.length);
        StateBuffer buffer = StateBuffer.acquire();
        long handle = counter.handle();
        String[] plainState = {"{\"value\":0,\"isReset\":false,\"alert\":null}"};
        work.put("package", times -> {
            for (int i = 0; i < times; i++) {
                counter.sendAndReadJson("\"increase\"");
            }
        });
        work.put("floor", times -> {
            for (int i = 0; i < times; i++) {
                lib.c().fk_send_and_read(handle, increase, increaseLength, buffer.struct());
                buffer.read(() -> 0, (status, function) -> { });
            }
        });
        work.put("plain", times -> {
            for (int i = 0; i < times; i++) {
                plainState[0] = plainCounter(plainState[0], "\"increase\"");
            }
        });

        // The Wi-Fi screen with 1,000 networks: the info button, then back, over and over.
        Instance wifi = lib.create("wifi", new CreateOptions().settings(Map.of("liveScan", false)));
        ObjectNode big = (ObjectNode) wifi.state();
        var networks = big.putArray("foundNetworks");
        for (int i = 0; i < 1000; i++) {
            networks.add(JSON.valueToTree(Map.of("id", "n" + i, "name", "Network " + i, "isSecured", i % 2 == 0,
                    "connectivity", 0.5, "signalBars", 2, "signalPercent", 50)));
        }
        wifi.close();
        Instance large = lib.create("wifi", new CreateOptions().state(big).settings(Map.of("liveScan", false)));
        String[] inputs = {"{\"infoButtonTapped\":{\"id\":\"n500\"}}", "\"destinationDismissed\""};
        String[] plainWifi = {large.stateJson().json()};
        work.put("wifi-package", times -> {
            for (int i = 0; i < times; i++) {
                large.sendAndReadJson(inputs[i % 2]);
            }
        });
        work.put("wifi-plain", times -> {
            for (int i = 0; i < times; i++) {
                plainWifi[0] = plainWifi(plainWifi[0], inputs[i % 2]);
            }
        });

        Map<String, List<Double>> samples = new LinkedHashMap<>();
        work.keySet().forEach(name -> samples.put(name, new ArrayList<>()));
        for (Map.Entry<String, Work> entry : work.entrySet()) { // warm up the JIT
            entry.getValue().run(entry.getKey().startsWith("wifi") ? perRound / 100 : perRound);
        }
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, Work> entry : work.entrySet()) {
                int times = entry.getKey().startsWith("wifi") ? Math.max(2, perRound / 100) : perRound;
                long start = System.nanoTime();
                entry.getValue().run(times);
                samples.get(entry.getKey()).add((System.nanoTime() - start) / 1e3 / times);
            }
        }
        System.out.printf("library %s; %d rounds of %d round trips (Wi-Fi: %d)%n", lib.path(), rounds, perRound,
                Math.max(2, perRound / 100));
        samples.forEach((name, values) -> System.out.printf("%-13s %10.3f µs%n", name, median(values)));
        System.out.printf("package / floor        %6.2f×  (target: at most 2×)%n", ratio(samples, "package", "floor"));
        System.out.printf("plain / package        %6.2f×  (the Counter: how much faster the package is)%n",
                ratio(samples, "plain", "package"));
        System.out.printf("wifi-plain / package   %6.2f×  (target: above 1×, the package faster)%n",
                ratio(samples, "wifi-plain", "wifi-package"));
        if (args.length > 3) {
            Map<String, Object> raw = new LinkedHashMap<>();
            raw.put("rounds", rounds);
            raw.put("perRound", perRound);
            raw.put("wifiPerRound", Math.max(2, perRound / 100));
            raw.put("java", System.getProperty("java.version"));
            raw.put("samplesMicroseconds", samples);
            JSON.writerWithDefaultPrettyPrinter().writeValue(Path.of(args[3]).toFile(), raw);
        }
        counter.close();
        large.close();
    }

    /** The plain-Java Counter: parse the input and the state, apply, write the state. */
    static String plainCounter(String state, String input) throws Exception {
        JsonNode in = JSON.readTree(input);
        ObjectNode current = (ObjectNode) JSON.readTree(state);
        String name = in.isTextual() ? in.asText() : in.fieldNames().next();
        switch (name) {
            case "increase" -> current.put("value", current.get("value").asLong() + 1).put("isReset", false);
            case "decrease" -> current.put("value", current.get("value").asLong() - 1).put("isReset", false);
            default -> current.put("value", 0).put("isReset", true);
        }
        return JSON.writeValueAsString(current);
    }

    /** The plain-Java Wi-Fi screen, for these two inputs: the detail of a network, or none. */
    static String plainWifi(String state, String input) throws Exception {
        JsonNode in = JSON.readTree(input);
        ObjectNode current = (ObjectNode) JSON.readTree(state);
        if (in.isTextual()) {
            current.putNull("destination");
        } else {
            String id = in.get("infoButtonTapped").get("id").asText();
            for (JsonNode network : current.get("foundNetworks")) {
                if (network.get("id").asText().equals(id)) {
                    ObjectNode detail = current.putObject("destination").putObject("detail");
                    detail.set("network", network);
                    detail.put("forgetAlertIsPresented", false);
                }
            }
        }
        return JSON.writeValueAsString(current);
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    static double ratio(Map<String, List<Double>> samples, String over, String under) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < samples.get(over).size(); i++) {
            ratios.add(samples.get(over).get(i) / samples.get(under).get(i));
        }
        return median(ratios);
    }

}
