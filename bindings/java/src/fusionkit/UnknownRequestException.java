package fusionkit;

/** FK_ERR_UNKNOWN_REQUEST: no open host request with that id. */
public class UnknownRequestException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 12;

    public UnknownRequestException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
