package fusionkit;

/** FK_ERR_PLUGIN_TRAPPED: a sandboxed plugin stopped on a trap in the call; the instance is failed, its last good state readable. */
public class PluginTrappedException extends FusionException {
    private static final long serialVersionUID = 1L;

    /** The status code this class stands for. */
    public static final int CODE = 17;

    public PluginTrappedException(String message, String status, String function) {
        super(message, CODE, status, function);
    }
}
