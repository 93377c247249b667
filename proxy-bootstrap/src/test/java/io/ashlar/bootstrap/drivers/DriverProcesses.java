package io.ashlar.bootstrap.drivers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the driver suites of other languages share: setup commands that fail loudly, and their files. */
final class DriverProcesses {

    /** Most characters of a report that go into a JUnit failure message. */
    static final int MAX_REPORT = 6_000;

    private DriverProcesses() {
    }

    /** Runs a setup command; fails with what it printed when it cannot start, fails or does not finish. */
    static void run(List<String> command, Path log, long timeoutSeconds, String what) throws IOException, InterruptedException {
        run(command, log, timeoutSeconds, what, null);
    }

    /** {@link #run(List, Path, long, String)} in {@code directory} (null: the build's own). */
    static void run(List<String> command, Path log, long timeoutSeconds, String what, Path directory)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError(what + " failed: cannot run " + command.get(0) + ": " + e.getMessage(), e);
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            destroy(process);
            throw new AssertionError(what + " did not finish in " + timeoutSeconds + " s; output:\n" + tail(Files.readString(log)));
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(what + " failed with exit code " + process.exitValue() + "; output ("
                    + log.toAbsolutePath() + "):\n" + tail(Files.readString(log)));
        }
    }

    /**
     * Runs a driver suite to its end: its output goes to {@code log} (and, once done, to the test's output); a suite
     * that cannot start or does not finish in time fails with what it printed.
     *
     * @param builder the suite's command, directory and environment
     * @return the suite's exit code
     */
    static int runSuite(ProcessBuilder builder, Path log, long timeoutSeconds, String what) throws IOException, InterruptedException {
        builder.redirectErrorStream(true).redirectOutput(log.toFile());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError("cannot run " + what + ": " + e.getMessage(), e);
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            destroy(process);
            throw new AssertionError(what + " did not finish in " + timeoutSeconds + " s; its output (" + log + "):\n"
                    + tail(Files.readString(log, StandardCharsets.UTF_8)));
        }
        System.out.println(Files.readString(log, StandardCharsets.UTF_8));
        return process.exitValue();
    }

    static void destroy(Process process) throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor();
    }

    static String tail(String text) {
        return text.length() <= MAX_REPORT ? text : "..." + text.substring(text.length() - MAX_REPORT);
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
