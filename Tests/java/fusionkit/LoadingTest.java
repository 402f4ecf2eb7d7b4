package fusionkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadingTest {
    @TempDir
    Path tmp;

    @Test
    void loadsByPathAndChecksTheAbiVersion() {
        Library lib = Library.load(Fixtures.libraryPath());
        assertEquals(1, lib.abiVersion());
        assertTrue(lib.version().matches("\\d+\\.\\d+\\.\\d+.*"), lib.version());
        assertEquals(Fixtures.libraryPath(), lib.path());
    }

    @Test
    void aMissingFileNamesThePath() {
        Path missing = tmp.resolve("libNowhere.so");
        LibraryLoadException error = assertThrows(LibraryLoadException.class, () -> Library.load(missing));
        assertTrue(error.getMessage().contains(missing.toString()), error.getMessage());
        assertTrue(error.getMessage().contains("does not exist"), error.getMessage());
    }

    @Test
    void aFolderIsNamedAsAFolder() {
        LibraryLoadException error = assertThrows(LibraryLoadException.class, () -> Library.load(tmp));
        assertEquals("no FusionKit library at " + tmp.toAbsolutePath().normalize() + ": it is a folder; name the library file in it",
                error.getMessage());
    }

    @Test
    void aFileThatIsNotALibraryNamesThePath() throws IOException {
        Path text = Files.writeString(tmp.resolve("libText.so"), "not a library");
        LibraryLoadException error = assertThrows(LibraryLoadException.class, () -> Library.load(text));
        assertTrue(error.getMessage().contains(text.toString()), error.getMessage());
        assertTrue(error.getMessage().startsWith("cannot load the library"), error.getMessage());
    }

    @Test
    void aLibraryWithoutTheAbiIsRefused() throws Exception {
        Path other = compile("int answer(void) { return 42; }\n");
        LibraryLoadException error = assertThrows(LibraryLoadException.class, () -> Library.load(other));
        assertEquals(other + " is not a FusionKit library: it does not export fk_abi_version", error.getMessage());
    }

    @Test
    void anotherAbiVersionIsRefusedBeforeAnyOtherCall() throws Exception {
        Path other = compile("""
                #include <stdint.h>
                #include <stdlib.h>
                uint32_t fk_abi_version(void) { return 2; }
                const char *fk_library_version(void) { abort(); }
                """);
        AbiVersionException error = assertThrows(AbiVersionException.class, () -> Library.load(other));
        assertEquals(2, error.found());
        assertEquals(1, error.expected());
        assertTrue(error.getMessage().contains("version 2") && error.getMessage().contains("version 1"), error.getMessage());
    }

    @Test
    void aMissingOptionalFunctionIsNamed() throws Exception {
        Path first = compile("""
                #include <stdint.h>
                uint32_t fk_abi_version(void) { return 1; }
                """);
        Library lib = Library.load(first);
        MissingFunctionException error = assertThrows(MissingFunctionException.class, () -> lib.limit(Library.LIMIT_LENGTH));
        assertTrue(error.getMessage().contains("fk_limit"), error.getMessage());
    }

    @Test
    void theDefaultSearchLooksInTheCheckout() {
        List<Path> candidates = Library.defaultCandidates();
        assertFalse(candidates.isEmpty());
        assertTrue(candidates.get(0).toString().endsWith(".build/release/libFusionExamples.so"), candidates.toString());
    }

    @Test
    void theManifest() {
        Library lib = Fixtures.LIB;
        assertEquals(List.of("counter", "answer", "home", "wifi", "profile"), lib.features().subList(0, 5));
        assertTrue(lib.optionalFunctions().contains("fk_state_patch"));
        JsonNode counter = lib.feature("counter");
        assertEquals("counter", counter.path("name").asText());
        assertTrue(counter.path("stateSchema").isObject());
        List<String> inputs = new java.util.ArrayList<>();
        counter.path("inputs").forEach(input -> inputs.add(input.path("name").asText()));
        assertEquals(List.of("increase", "decrease", "reset", "show", "alertDismissed"), inputs);
        assertEquals(lib.features().size(), lib.manifest().path("features").size());
        assertEquals("liveScan", lib.feature("wifi").path("settings").path(0).path("name").asText());
        assertEquals(0, counter.path("settings").size());
        UnknownFeatureException error = assertThrows(UnknownFeatureException.class, () -> lib.feature("teleporter"));
        assertTrue(error.message().contains("\"teleporter\""), error.message());
    }

    /** A shared library built from C source with the system's compiler. */
    private Path compile(String source) throws Exception {
        Path c = Files.writeString(tmp.resolve("lib.c"), source);
        Path library = tmp.resolve("libOther" + System.nanoTime() + ".so");
        Process cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-o", library.toString(), c.toString())
                .redirectErrorStream(true).start();
        String output = new String(cc.getInputStream().readAllBytes());
        assertEquals(0, cc.waitFor(), output);
        return library;
    }
}
