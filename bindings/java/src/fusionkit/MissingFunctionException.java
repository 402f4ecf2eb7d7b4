package fusionkit;

/** The loaded library lacks an entry point added to the ABI after its first version. */
public class MissingFunctionException extends FusionException {
    private static final long serialVersionUID = 1L;

    public MissingFunctionException(String message) {
        super(message);
    }
}
