package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A JVM that used the library exits cleanly: JNA closes its libraries at shutdown, and a
 * Swift library unloaded then crashes the exit (SIGSEGV) unless it is kept mapped.
 */
class ExitTest {
    /** What the child JVM runs: an instance, a subscription on an executor, a library thread's change. */
    public static void main(String[] args) throws Exception {
        ExecutorService ui = Executors.newSingleThreadExecutor();
        try (Instance counter = Library.load().create("counter")) {
            counter.subscribe(ui, version -> System.out.println("v" + version));
            counter.send("increase");
        } finally {
            ui.shutdown();
        }
        ui.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        System.out.println("done");
    }

    @RepeatedTest(3)
    void theJvmExitsCleanlyAfterUsingTheLibrary() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("fusionkit.test.classpath"), ExitTest.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes());
        assertEquals(0, child.waitFor(), output);
        assertEquals("v1\ndone\n", output);
    }
}
