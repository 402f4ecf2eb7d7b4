package fusionkit;

/** A typed input: what `fusion types --lang java` generates for each feature's input cases. */
public interface FusionInput {
    /** The input as the JSON text the library reads ({@code "increase"} or {@code {"networkTapped":{"id":"a"}}}). */
    String toJson();
}
