package fusionkit;

/** FK_ERR_UNKNOWN_SUBSCRIPTION: no such subscription on the instance. */
public class UnknownSubscriptionException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 10;

    public UnknownSubscriptionException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
