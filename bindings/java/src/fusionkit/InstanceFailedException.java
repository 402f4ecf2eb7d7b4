package fusionkit;

/** FK_ERR_INSTANCE_FAILED: the instance failed earlier (a sandboxed plugin's trap or limit) and takes no more inputs. */
public class InstanceFailedException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 19;

    public InstanceFailedException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
