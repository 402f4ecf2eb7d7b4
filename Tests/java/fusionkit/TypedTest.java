package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import fusion_examples.FusionExamples;
import fusion_examples.FusionExamples.CounterInput;
import fusion_examples.FusionExamples.ProfileStoreInput;
import fusion_examples.FusionExamples.WiFiSettingsDestination;
import fusion_examples.FusionExamples.WiFiSettingsInput;
import fusion_examples.FusionExamples.WiFiSettingsState;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed Java types of the example library (examples/java, `fusion types --lang java`). */
class TypedTest {
    static final FusionExamples LIB = FusionExamples.load(Fixtures.libraryPath());

    @TempDir
    Path tmp;

    @Test
    void typedInputsAndStates() {
        try (var wifi = LIB.wifi(new CreateOptions().settings(Map.of("liveScan", false)))) {
            wifi.send(new WiFiSettingsInput.NetworkTapped("blob"));
            WiFiSettingsState state = wifi.sendAndRead(new WiFiSettingsInput.PasswordChanged("secret"));
            var connect = assertInstanceOf(WiFiSettingsDestination.Connect.class, state.destination());
            assertEquals("blob", connect.value().network().id());
            assertEquals("secret", connect.value().password());
            assertEquals(4, state.foundNetworks().size());
            wifi.send(new WiFiSettingsInput.WifiToggled(false));
            assertNull(wifi.state().destination());
            assertEquals(3, wifi.version());
        }
        try (var counter = LIB.counter()) {
            counter.send(new CounterInput.Increase());
            assertEquals(1, counter.sendAndRead(new CounterInput.Show()).value());
            assertEquals("The value is 1.", counter.state().alert());
        }
    }

    /** The manifest is true: every state reached reads into the records and writes back as the library wrote it. */
    @Test
    void statesRoundTripThroughTheRecords() throws InterruptedException {
        try (var wifi = LIB.wifi(new CreateOptions().manualClock().seed(1))) {
            wifi.send(new WiFiSettingsInput.ScreenAppeared());
            for (WiFiSettingsInput input : new WiFiSettingsInput[] {
                new WiFiSettingsInput.NetworkTapped("blob"), new WiFiSettingsInput.PasswordChanged("blob"),
                new WiFiSettingsInput.JoinButtonTapped(), new WiFiSettingsInput.InfoButtonTapped("blob"),
                new WiFiSettingsInput.ForgetNetworkButtonTapped(), new WiFiSettingsInput.ConfirmForgetNetworkButtonTapped(),
                new WiFiSettingsInput.NetworkTapped("blob-jr"), new WiFiSettingsInput.PasswordChanged("wrong"),
                new WiFiSettingsInput.JoinButtonTapped()}) {
                wifi.send(input);
                wifi.instance().advanceClock(java.time.Duration.ofSeconds(2));
                JsonNode state = wifi.instance().state();
                assertTrue(Fixtures.sameJson(state, wifi.state().toJsonNode()), input + ": " + state);
            }
        }
        try (var profile = LIB.profile()) {
            profile.send(new ProfileStoreInput.LoadAllProfiles());
            Fixtures.waitUntil(() -> !profile.state().isLoading(), "the built-in answers");
            assertTrue(Fixtures.sameJson(profile.instance().state(), profile.state().toJsonNode()));
            assertEquals(profile.instance().state().at("/pet/name").asText(), profile.state().pet().name());
        }
    }

    @Test
    void aMisspelledInputOrAWrongFieldTypeDoesNotCompile() throws Exception {
        assertEquals("", compile("new WiFiSettingsInput.NetworkTapped(\"blob\")"), "the control compiles");
        assertTrue(compile("new WiFiSettingsInput.NetworkTaped(\"blob\")").contains("cannot find symbol"));
        assertTrue(compile("new WiFiSettingsInput.NetworkTapped(3)").contains("incompatible types"));
        assertTrue(compile("new WiFiSettingsInput.NetworkTapped()").contains("cannot be applied"));
        assertTrue(compile("new CounterInput.Increase()").contains("incompatible types"), "another feature's input");
    }

    private String compile(String input) throws Exception {
        Path source = tmp.resolve("Use.java");
        Files.writeString(source, String.join("\n",
                "import fusion_examples.FusionExamples;",
                "import fusion_examples.FusionExamples.CounterInput;",
                "import fusion_examples.FusionExamples.WiFiSettingsInput;",
                "class Use {",
                "    static void use(FusionExamples lib) {",
                "        lib.wifi().send(" + input + ");",
                "    }",
                "}"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-d", tmp.resolve("out").toString(),
                "-cp", System.getProperty("fusionkit.test.classpath"), source.toString());
        String text = errors.toString(StandardCharsets.UTF_8);
        return status == 0 ? "" : text.isEmpty() ? "failed" : text;
    }
}
