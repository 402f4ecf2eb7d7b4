package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import fusion_examples.FusionExamples;
import fusion_examples.FusionExamples.WiFiSettingsDestination;
import fusion_examples.FusionExamples.WiFiSettingsInput;
import fusion_examples.FusionExamples.WiFiSettingsState;
import fusionkit.scenario.Comparison;
import java.awt.GraphicsEnvironment;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.imageio.ImageIO;
import javax.swing.AbstractButton;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JPasswordField;
import javax.swing.SwingUtilities;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import wifiscreen.WifiScreen;

/**
 * The Swing Wi-Fi screen (examples/java/wifiscreen) under Xvfb, as Tests/web/test_three_renderers.py
 * drives the other renderers: a seed-003 scenario's inputs made through the screen's own
 * components, and after each step what the screen shows (read from its components) must
 * be what the state says it should show, and the state what the scenario expects.
 */
class SwingScreenTest {
    static final FusionExamples LIB = FusionExamples.load(Fixtures.libraryPath());

    /** What a Wi-Fi screen shows for a state: the meaning every renderer must draw. */
    static Map<String, Object> shouldShow(WiFiSettingsState state) {
        Map<String, Object> out = new LinkedHashMap<>();
        var connect = state.destination() instanceof WiFiSettingsDestination.Connect c ? c.value() : null;
        var detail = state.destination() instanceof WiFiSettingsDestination.Detail d ? d.value() : null;
        out.put("screen", connect != null ? "connect" : detail != null ? "detail" : "list");
        out.put("selected", state.selectedNetwork() == null ? null : state.selectedNetwork().name());
        out.put("alert", connect != null && connect.incorrectPasswordAlertIsPresented() ? "incorrect-password"
                : detail != null && detail.forgetAlertIsPresented() ? "forget" : null);
        out.put("joining", connect != null && connect.isConnecting());
        return out;
    }

    static <T> T onSwing(java.util.concurrent.Callable<T> work) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        SwingUtilities.invokeAndWait(() -> {
            try {
                result.set(work.call());
            } catch (Exception error) {
                failure.set(error);
            }
        });
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    @ParameterizedTest
    @ValueSource(strings = {"wifi-wrong-password", "wifi-dismiss-while-joining", "wifi-right-password",
        "wifi-forget-network", "wifi-info-button", "wifi-off", "wifi-open-network", "wifi-secured-network",
        "wifi-join-while-disabled"})
    void theScenarioPlayedThroughTheScreen(String name) throws Exception {
        boolean required = "required".equals(System.getProperty("fusionkit.test.display"));
        assumeFalse(!required && GraphicsEnvironment.isHeadless(), "no display (scripts/test-java runs this under Xvfb)");
        assertFalse(GraphicsEnvironment.isHeadless(), "no display: scripts/test-java runs the tests under xvfb-run");
        JsonNode scenario = Fixtures.json(Files.readString(Path.of("examples/scenarios", name + ".scenario.json")));
        assertEquals(Fixtures.json("{\"settings\":{\"liveScan\":false}}"), scenario.get("options"));
        try (var wifi = LIB.wifi(new CreateOptions().manualClock().settings(Map.of("liveScan", false)))) {
            WifiScreen screen = onSwing(() -> new WifiScreen(wifi));
            onSwing(() -> {
                wifi.send(new WiFiSettingsInput.ScreenAppeared()); // as the window opening does
                screen.frame.setVisible(true);
                return null;
            });
            int number = 0;
            List<String> shots = new ArrayList<>();
            onSwing(() -> null);
            assertEquals(shouldShow(wifi.state()), onSwing(screen::report), name + " at the start");
            shots.add(screenshot(screen, name + "-0"));
            for (JsonNode step : scenario.get("steps")) {
                number++;
                act(screen, wifi, step);
                wifi.instance().advanceClockNanos(0);
                onSwing(() -> null); // the draws the changes queued have run
                Map<String, Object> shown = onSwing(screen::report);
                assertEquals(shouldShow(wifi.state()), shown, name + " step " + number + ": " + step);
                if (step.has("expect")) {
                    List<String> differences = Comparison.expected(step.get("expect"), wifi.instance().state()).stream()
                            .map(Comparison.Difference::line).toList();
                    assertTrue(differences.isEmpty(), name + " step " + number + ": " + differences);
                }
                if ("incorrect-password".equals(shown.get("alert")) || "forget".equals(shown.get("alert"))) {
                    shots.add(screenshot(screen, name + "-" + number));
                }
            }
            onSwing(() -> {
                screen.frame.dispose();
                return null;
            });
        }
    }

    private static void act(WifiScreen screen, TypedInstance<WiFiSettingsState, WiFiSettingsInput> wifi, JsonNode step)
            throws Exception {
        if (step.has("advance")) {
            wifi.instance().advanceClockNanos(step.get("advance").decimalValue().movePointRight(9).longValueExact());
            return;
        }
        if (!step.has("send")) {
            return;
        }
        JsonNode input = step.get("send");
        String kind = input.isTextual() ? input.asText() : input.fieldNames().next();
        JsonNode fields = input.isTextual() ? Fixtures.json("{}") : input.get(kind);
        onSwing(() -> {
            switch (kind) {
                // A network the screen does not show (Wi-Fi off, an id no network has) cannot be
                // tapped: the step's expectation then holds for the state left as it was.
                case "networkTapped" -> {
                    String id = fields.get("id").asText();
                    String row = hasComponent(screen, "selected:" + id) ? "selected:" + id : "network:" + id;
                    if (hasComponent(screen, row)) {
                        click(screen, row);
                    }
                }
                case "infoButtonTapped" -> {
                    if (hasComponent(screen, "info:" + fields.get("id").asText())) {
                        click(screen, "info:" + fields.get("id").asText());
                    }
                }
                case "wifiToggled" -> {
                    JCheckBox toggle = screen.find("toggle", JCheckBox.class);
                    if (toggle.isSelected() != fields.get("isOn").asBoolean()) {
                        toggle.doClick();
                    }
                }
                case "passwordChanged" -> {
                    JPasswordField field = screen.find("password", JPasswordField.class);
                    if (field.isEnabled()) { // a person cannot type into a disabled field
                        field.setText(fields.get("password").asText());
                    }
                }
                case "joinButtonTapped" -> click(screen, "join");
                case "destinationDismissed" -> click(screen, screen.report().get("screen").equals("detail") ? "back" : "cancel");
                case "incorrectPasswordAlertDismissed" -> click(screen, "alert-ok");
                case "forgetNetworkButtonTapped" -> click(screen, "forget");
                case "confirmForgetNetworkButtonTapped" -> click(screen, "forget-confirm");
                case "forgetAlertDismissed" -> click(screen, "forget-cancel");
                case "screenAppeared" -> wifi.send(new WiFiSettingsInput.ScreenAppeared());
                case "screenDisappeared" -> wifi.send(new WiFiSettingsInput.ScreenDisappeared());
                default -> throw new AssertionError("no way to make " + kind + " on the screen");
            }
            return null;
        });
    }

    private static boolean hasComponent(WifiScreen screen, String name) {
        try {
            screen.find(name, java.awt.Component.class);
            return true;
        } catch (IllegalArgumentException missing) {
            return false;
        }
    }

    private static void click(WifiScreen screen, String name) {
        AbstractButton button = screen.find(name, AbstractButton.class);
        assertTrue(button.isShowing() || button instanceof JButton, name + " is not on the screen");
        button.doClick(0);
    }

    private static String screenshot(WifiScreen screen, String name) throws Exception {
        return onSwing(() -> {
            var pane = screen.frame.getContentPane();
            BufferedImage image = new BufferedImage(Math.max(1, pane.getWidth()), Math.max(1, pane.getHeight()),
                    BufferedImage.TYPE_INT_RGB);
            pane.paint(image.getGraphics());
            Path out = Path.of(".build/java/screenshots", name + ".png");
            Files.createDirectories(out.getParent());
            ImageIO.write(image, "png", out.toFile());
            return out.toString();
        });
    }
}
