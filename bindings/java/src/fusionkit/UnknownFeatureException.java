package fusionkit;

/** FK_ERR_UNKNOWN_FEATURE: no feature of that name (the message lists them). */
public class UnknownFeatureException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 5;

    public UnknownFeatureException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
