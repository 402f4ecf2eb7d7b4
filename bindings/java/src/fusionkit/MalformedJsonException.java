package fusionkit;

/** FK_ERR_MALFORMED_JSON: text that is not JSON, or is empty, or nests too deeply. */
public class MalformedJsonException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 4;

    public MalformedJsonException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
