package io.ashlar.bootstrap.faults;

import io.ashlar.bootstrap.TempTrees;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The proxy as its own process, started as {@code bin/ashlar start --conf DIR} starts it (the same main class and
 * JVM options, its own heap, its own signals): what a test of memory, of signals or of start-up needs and an
 * in-process proxy cannot give. Its log lines are kept for the test to read.
 */
final class ProxyProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final long readyMillis;

    private ProxyProcess(Process process, int port, long startedNanos) throws IOException, InterruptedException {
        this.process = process;
        this.port = port;
        Thread.ofPlatform().daemon().name("proxy-process-output").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ended) {
                // The process ended.
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lines.stream().noneMatch(each -> each.contains("Ashlar ready on port"))) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                process.destroyForcibly();
                throw new IllegalStateException("the proxy did not start:\n" + String.join("\n", lines));
            }
            Thread.sleep(20);
        }
        this.readyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    /**
     * Writes {@code files} (name to content: server.yaml, config-*.yaml) into a new conf directory and starts the
     * proxy on it with these JVM options (heap, GC), waiting until it says it is ready.
     */
    static ProxyProcess start(Map<String, String> files, List<String> jvmOptions) throws IOException, InterruptedException {
        Path conf = TempTrees.create("ashlar-conf");
        for (Map.Entry<String, String> each : files.entrySet()) {
            Files.writeString(conf.resolve(each.getKey()), each.getValue());
        }
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        String transport = System.getProperty("ashlar.transport");
        if (transport != null) {
            command.add("-Dashlar.transport=" + transport); // the proxy runs on the transport the tests run on
        }
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.ashlar.bootstrap.Ashlar", "start",
                "--conf", conf.toString(), "--port", Integer.toString(port)));
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ProxyProcess(process, port, started);
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?"
                + FaultyServers.CLIENT_PARAMETERS, "root", "root");
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** How long the proxy took from its start to "ready". */
    long readyMillis() {
        return readyMillis;
    }

    /** What it logged so far. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Its resident memory now (VmRSS), in MiB. */
    long rssMiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
            }
        }
        throw new IllegalStateException("no VmRSS for " + process.pid());
    }

    /** SIGTERM, as an init system stops it. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the process to end; its exit code, or -1 if it did not within the time. */
    int awaitExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
