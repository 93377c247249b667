package io.ashlar.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Directories tests make under /tmp, and their removal: a run leaves none behind. */
public final class TempTrees {

    private TempTrees() {
    }

    /** A new directory under the system's temporary one, deleted with all it holds when the JVM exits. */
    public static Path create(String prefix) throws IOException {
        Path result = Files.createTempDirectory(prefix);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
            try {
                delete(result);
            } catch (IOException | UncheckedIOException e) {
                System.err.println("could not delete " + result + ": " + e);
            }
        }));
        return result;
    }

    /** Deletes {@code root} and everything under it; nothing if it does not exist. */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path each : paths) {
            Files.deleteIfExists(each);
        }
    }
}
