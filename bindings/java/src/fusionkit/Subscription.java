package fusionkit;

/** A subscription to an instance's changes; close it to end it (its callback is not called again once this returns). */
public final class Subscription implements AutoCloseable {
    private final Instance instance;
    private final long id;

    Subscription(Instance instance, long id) {
        this.instance = instance;
        this.id = id;
    }

    public long id() {
        return id;
    }

    /** Whether it still calls its callback: neither ended nor its instance closed. */
    public boolean isActive() {
        return instance.hasSubscription(id);
    }

    /** Ends it; ending it again, or after its instance closed, does nothing. */
    public void unsubscribe() {
        if (isActive()) {
            try {
                instance.unsubscribe(id);
            } catch (UnknownSubscriptionException | InvalidHandleException alreadyEnded) {
                // Ended by another thread, or the instance closed, in between: it is over either way.
            }
        }
    }

    @Override
    public void close() {
        unsubscribe();
    }

    @Override
    public String toString() {
        return "Subscription(" + id + (isActive() ? ")" : ", ended)");
    }
}
