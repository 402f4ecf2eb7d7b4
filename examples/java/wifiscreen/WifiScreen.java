package wifiscreen;

import fusion_examples.FusionExamples;
import fusion_examples.FusionExamples.AlertText;
import fusion_examples.FusionExamples.ConnectToNetworkState;
import fusion_examples.FusionExamples.Network;
import fusion_examples.FusionExamples.NetworkDetailState;
import fusion_examples.FusionExamples.WiFiSettingsDestination;
import fusion_examples.FusionExamples.WiFiSettingsInput;
import fusion_examples.FusionExamples.WiFiSettingsState;
import fusionkit.CreateOptions;
import fusionkit.TypedInstance;
import java.awt.BorderLayout;
import java.awt.CardLayout;
import java.awt.Component;
import java.awt.Container;
import java.awt.Dimension;
import java.awt.FlowLayout;
import java.awt.Font;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.swing.BorderFactory;
import javax.swing.Box;
import javax.swing.BoxLayout;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JPasswordField;
import javax.swing.SwingUtilities;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;

/**
 * The seed-003 Wi-Fi settings screen in Swing. It draws only what the state says (the
 * switch, the networks with bars and lock, the connect sheet with its password field and
 * the incorrect-password alert, the detail sheet with forget and its alert) and sends an
 * input for each thing a person does; it decides nothing. Changes arrive on the library's
 * thread and are drawn on Swing's (subscribe with SwingUtilities::invokeLater).
 *
 * <pre>java -cp … wifiscreen.WifiScreen</pre>
 */
public final class WifiScreen {
    private final TypedInstance<WiFiSettingsState, WiFiSettingsInput> wifi;
    public final JFrame frame = new JFrame("Wi-Fi");
    private final JCheckBox toggle = named(new JCheckBox("Wi-Fi"), "toggle");
    private final JPanel networks = named(new JPanel(), "networks");
    private final CardLayout cards = new CardLayout();
    private final JPanel sheets = new JPanel(cards);
    private final JLabel connectTitle = named(new JLabel(), "connect-title");
    private final JPasswordField password = named(new JPasswordField(16), "password");
    private final JButton join = named(new JButton("Join"), "join");
    private final JButton cancel = named(new JButton("Cancel"), "cancel");
    private final JLabel joining = named(new JLabel("Joining…"), "joining");
    private final JPanel passwordAlert = named(new JPanel(), "incorrect-password-alert");
    private final JLabel passwordAlertText = new JLabel();
    private final JButton passwordAlertOk = named(new JButton("OK"), "alert-ok");
    private final JLabel detailTitle = named(new JLabel(), "detail-title");
    private final JLabel detailSecurity = named(new JLabel(), "detail-security");
    private final JButton back = named(new JButton("Back"), "back");
    private final JButton forget = named(new JButton("Forget This Network"), "forget");
    private final JPanel forgetAlert = named(new JPanel(), "forget-alert");
    private final JLabel forgetAlertText = new JLabel();
    private final JButton forgetConfirm = named(new JButton("Forget"), "forget-confirm");
    private final JButton forgetCancel = named(new JButton("Cancel"), "forget-cancel");
    private String shownCard = "list";
    private boolean drawing;

    public WifiScreen(TypedInstance<WiFiSettingsState, WiFiSettingsInput> wifi) {
        this.wifi = wifi;
        toggle.addActionListener(event -> send(new WiFiSettingsInput.WifiToggled(toggle.isSelected())));
        join.addActionListener(event -> send(new WiFiSettingsInput.JoinButtonTapped()));
        // Enter in the field is the Join button: it sends only while the state has Join enabled.
        password.addActionListener(event -> {
            if (join.isEnabled()) {
                send(new WiFiSettingsInput.JoinButtonTapped());
            }
        });
        cancel.addActionListener(event -> send(new WiFiSettingsInput.DestinationDismissed()));
        back.addActionListener(event -> send(new WiFiSettingsInput.DestinationDismissed()));
        passwordAlertOk.addActionListener(event -> send(new WiFiSettingsInput.IncorrectPasswordAlertDismissed()));
        forget.addActionListener(event -> send(new WiFiSettingsInput.ForgetNetworkButtonTapped()));
        forgetConfirm.addActionListener(event -> send(new WiFiSettingsInput.ConfirmForgetNetworkButtonTapped()));
        forgetCancel.addActionListener(event -> send(new WiFiSettingsInput.ForgetAlertDismissed()));
        password.getDocument().addDocumentListener(new DocumentListener() {
            @Override
            public void insertUpdate(DocumentEvent event) {
                typed();
            }

            @Override
            public void removeUpdate(DocumentEvent event) {
                typed();
            }

            @Override
            public void changedUpdate(DocumentEvent event) {
                typed();
            }
        });

        JPanel list = new JPanel(new BorderLayout());
        list.add(toggle, BorderLayout.NORTH);
        networks.setLayout(new BoxLayout(networks, BoxLayout.Y_AXIS));
        list.add(networks, BorderLayout.CENTER);

        password.setMaximumSize(new Dimension(Integer.MAX_VALUE, password.getPreferredSize().height));
        JPanel connect = column(connectTitle, password, row(join, cancel), joining, passwordAlert);
        passwordAlert.setLayout(new BoxLayout(passwordAlert, BoxLayout.Y_AXIS));
        passwordAlert.setBorder(BorderFactory.createTitledBorder("Alert"));
        passwordAlert.add(passwordAlertText);
        passwordAlert.add(passwordAlertOk);

        JPanel detail = column(detailTitle, detailSecurity, row(forget, back), forgetAlert);
        forgetAlert.setLayout(new BoxLayout(forgetAlert, BoxLayout.Y_AXIS));
        forgetAlert.setBorder(BorderFactory.createTitledBorder("Alert"));
        forgetAlert.add(forgetAlertText);
        forgetAlert.add(row(forgetConfirm, forgetCancel));

        sheets.add(list, "list");
        sheets.add(connect, "connect");
        sheets.add(detail, "detail");
        frame.setContentPane(sheets);
        frame.setDefaultCloseOperation(JFrame.DISPOSE_ON_CLOSE);
        frame.setPreferredSize(new Dimension(420, 360));
        wifi.instance().subscribe(SwingUtilities::invokeLater, version -> draw(wifi.state()));
        draw(wifi.state());
        frame.pack();
    }

    private void send(WiFiSettingsInput input) {
        if (!drawing) {
            wifi.send(input);
        }
    }

    private void typed() {
        send(new WiFiSettingsInput.PasswordChanged(new String(password.getPassword())));
    }

    /** Draws a state: every component's content comes from it. On Swing's thread. */
    void draw(WiFiSettingsState state) {
        drawing = true;
        try {
            toggle.setSelected(state.isOn());
            networks.removeAll();
            int barsMaximum = (int) state.signalBarsMaximum();
            if (state.selectedNetwork() != null) {
                networks.add(networkRow(state.selectedNetwork(), true, barsMaximum));
            }
            if (state.isOn() && !state.otherNetworks().isEmpty()) {
                networks.add(named(new JLabel(state.otherNetworksHeading()), "networks-heading"));
                for (Network network : state.otherNetworks()) {
                    networks.add(networkRow(network, false, barsMaximum));
                }
            }
            networks.revalidate();
            networks.repaint();
            WiFiSettingsDestination destination = state.destination();
            if (destination instanceof WiFiSettingsDestination.Connect connect) {
                drawConnect(connect.value());
                show("connect");
            } else if (destination instanceof WiFiSettingsDestination.Detail detail) {
                drawDetail(detail.value(), (int) state.signalBarsMaximum());
                show("detail");
            } else {
                show("list");
            }
        } finally {
            drawing = false;
        }
    }

    private void drawConnect(ConnectToNetworkState connect) {
        connectTitle.setText("Enter the password for “" + connect.network().name() + "”");
        if (!new String(password.getPassword()).equals(connect.password())) {
            password.setText(connect.password());
        }
        password.setEnabled(connect.isPasswordEditable());
        join.setEnabled(connect.isJoinEnabled());
        joining.setVisible(connect.isConnecting());
        drawAlert(passwordAlert, passwordAlertText, passwordAlertOk, null, connect.incorrectPasswordAlertIsPresented(),
                connect.incorrectPasswordAlert());
    }

    private void drawDetail(NetworkDetailState detail, int barsMaximum) {
        detailTitle.setText(detail.network().name());
        detailSecurity.setText("Security: " + detail.network().securityLabel());
        detailSecurity.setIcon(detail.network().isSecured() ? new LockIcon() : null);
        detailSecurity.setToolTipText("Signal " + detail.network().signalBars() + " of " + barsMaximum);
        drawAlert(forgetAlert, forgetAlertText, forgetConfirm, forgetCancel, detail.forgetAlertIsPresented(), detail.forgetAlert());
    }

    private static void drawAlert(JPanel panel, JLabel text, JButton action, JButton cancelButton, boolean shown, AlertText alert) {
        panel.setVisible(shown);
        text.setText("<html><b>" + alert.title() + "</b><br>" + alert.message() + "</html>");
        action.setText(alert.actionLabel());
        if (cancelButton != null) {
            cancelButton.setVisible(alert.cancelLabel() != null);
            cancelButton.setText(alert.cancelLabel() == null ? "" : alert.cancelLabel());
        }
    }

    private void show(String card) {
        shownCard = card;
        cards.show(sheets, card);
    }

    private Component networkRow(Network network, boolean selected, int barsMaximum) {
        JButton name = named(new JButton((selected ? "✓ " : "") + network.name()), (selected ? "selected:" : "network:") + network.id());
        name.setBorderPainted(false);
        name.addActionListener(event -> send(new WiFiSettingsInput.NetworkTapped(network.id())));
        JLabel bars = named(new JLabel(new BarsIcon((int) network.signalBars(), barsMaximum)), "bars:" + network.id());
        bars.setToolTipText(network.signalPercent() + "%");
        JLabel lock = named(new JLabel(network.isSecured() ? new LockIcon() : null), "lock:" + network.id());
        lock.setToolTipText(network.securityLabel());
        JButton info = named(new JButton("i"), "info:" + network.id());
        info.addActionListener(event -> send(new WiFiSettingsInput.InfoButtonTapped(network.id())));
        JPanel row = row(name, Box.createHorizontalGlue(), lock, bars, info);
        row.setName("row:" + network.id());
        if (selected) {
            name.setFont(name.getFont().deriveFont(Font.BOLD));
        }
        return row;
    }

    /** Signal bars: the state's signalBarsMaximum of them, as many filled as the network's signalBars. */
    record BarsIcon(int filled, int maximum) implements javax.swing.Icon {
        @Override
        public void paintIcon(Component c, java.awt.Graphics g, int x, int y) {
            for (int bar = 0; bar < maximum; bar++) {
                g.setColor(bar < filled ? java.awt.Color.DARK_GRAY : java.awt.Color.LIGHT_GRAY);
                int height = 12 * (bar + 1) / maximum;
                g.fillRect(x + bar * 6, y + 12 - height, 4, height);
            }
        }

        @Override
        public int getIconWidth() {
            return 6 * maximum;
        }

        @Override
        public int getIconHeight() {
            return 12;
        }
    }

    /** A padlock, for a secured network. */
    record LockIcon() implements javax.swing.Icon {
        @Override
        public void paintIcon(Component c, java.awt.Graphics g, int x, int y) {
            g.setColor(java.awt.Color.DARK_GRAY);
            g.drawArc(x + 2, y, 7, 8, 0, 180);
            g.fillRect(x + 1, y + 5, 10, 7);
        }

        @Override
        public int getIconWidth() {
            return 12;
        }

        @Override
        public int getIconHeight() {
            return 12;
        }
    }

    /** What the screen shows, read from its components (not from the state). */
    public Map<String, Object> report() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("screen", shownCard);
        String selected = null;
        for (Component row : networks.getComponents()) {
            for (Component part : ((Container) row).getComponents()) {
                if (part.getName() != null && part.getName().startsWith("selected:")) {
                    selected = ((JButton) part).getText().substring(2);
                }
            }
        }
        out.put("selected", selected);
        out.put("alert", shownCard.equals("connect") && passwordAlert.isVisible() ? "incorrect-password"
                : shownCard.equals("detail") && forgetAlert.isVisible() ? "forget" : null);
        out.put("joining", shownCard.equals("connect") && joining.isVisible());
        return out;
    }

    /** The component named so (setName), anywhere in the frame. */
    public <T extends Component> T find(String name, Class<T> type) {
        Component found = find(frame.getContentPane(), name);
        if (found == null) {
            throw new IllegalArgumentException("no component named " + name);
        }
        return type.cast(found);
    }

    private static Component find(Container in, String name) {
        for (Component component : in.getComponents()) {
            if (name.equals(component.getName())) {
                return component;
            }
            if (component instanceof Container container) {
                Component found = find(container, name);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static <T extends Component> T named(T component, String name) {
        component.setName(name);
        return component;
    }

    private static JPanel row(Component... parts) {
        JPanel row = new JPanel(new FlowLayout(FlowLayout.LEFT));
        row.setLayout(new BoxLayout(row, BoxLayout.X_AXIS));
        for (Component part : parts) {
            row.add(part);
        }
        return row;
    }

    private static JPanel column(Component... parts) {
        JPanel column = new JPanel();
        column.setLayout(new BoxLayout(column, BoxLayout.Y_AXIS));
        column.setBorder(BorderFactory.createEmptyBorder(12, 12, 12, 12));
        for (Component part : parts) {
            if (part instanceof javax.swing.JComponent component) {
                component.setAlignmentX(Component.LEFT_ALIGNMENT);
            }
            column.add(part);
            column.add(Box.createVerticalStrut(6));
        }
        return column;
    }

    public static void main(String[] args) {
        var wifi = FusionExamples.load().wifi(new CreateOptions());
        SwingUtilities.invokeLater(() -> {
            WifiScreen screen = new WifiScreen(wifi);
            wifi.send(new WiFiSettingsInput.ScreenAppeared());
            screen.frame.addWindowListener(new java.awt.event.WindowAdapter() {
                @Override
                public void windowClosed(java.awt.event.WindowEvent event) {
                    wifi.close();
                }
            });
            screen.frame.setVisible(true);
        });
    }
}
