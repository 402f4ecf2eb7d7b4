import FusionKit

/// An alert's words, decided by the feature and kept in the state, so that every front
/// end (the web page, Textual, ncurses) shows the same title, message and buttons.
@JSONCoded
public struct AlertText: JSONCoded, Equatable, Sendable {
    public var title: String
    public var message: String
    /// The button that acknowledges or acts ("OK", "Forget").
    public var actionLabel: String
    /// The button that backs out, when there is one ("Cancel").
    public var cancelLabel: String?

    public init(title: String, message: String, actionLabel: String, cancelLabel: String? = nil) {
        self.title = title
        self.message = message
        self.actionLabel = actionLabel
        self.cancelLabel = cancelLabel
    }

    /// The connect screen's alert after a join with a wrong password.
    public static func incorrectPassword(for networkName: String) -> AlertText {
        AlertText(title: "Incorrect Password", message: "The password for “\(networkName)” is not correct.", actionLabel: "OK")
    }

    /// The detail screen's confirmation before forgetting a network.
    public static func forget(_ networkName: String) -> AlertText {
        AlertText(
            title: "Forget Wi-Fi Network “\(networkName)”?", message: "Your device will no longer join this network automatically.",
            actionLabel: "Forget", cancelLabel: "Cancel")
    }
}
