package fusionkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Function;

/**
 * An instance typed by its feature's state and inputs, as `fusion types --lang java`
 * generates them: {@code send} takes only the feature's input records and {@code state}
 * gives its state record. {@link #instance()} is the untyped instance, for everything else.
 */
public final class TypedInstance<S, I extends FusionInput> implements AutoCloseable {
    private final Instance instance;
    private final Function<JsonNode, S> readState;

    public TypedInstance(Instance instance, Function<JsonNode, S> readState) {
        this.instance = instance;
        this.readState = readState;
    }

    public Instance instance() {
        return instance;
    }

    public void send(I input) {
        instance.send(input);
    }

    public S sendAndRead(I input) {
        return readState.apply(instance.sendAndRead(input));
    }

    public S state() {
        return readState.apply(instance.state());
    }

    public long version() {
        return instance.version();
    }

    @Override
    public void close() {
        instance.close();
    }
}
