package io.ashlar.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heap gate of {@link MemoryBudget}, in a JVM of its own with a small heap: a statement that keeps charging rows
 * it holds fails with the budget's error before the heap runs out; with the gate off, the same statement runs the JVM
 * out of memory (so the first result is the gate's doing).
 */
final class HeapGateTest {

    @Test
    void aStatementFillingTheHeapFailsBeforeTheHeapRunsOut() throws Exception {
        String out = fill(List.of());
        assertTrue(out.startsWith("failed: the proxy's heap is nearly full ("), out);
        assertTrue(out.contains(" MiB of the shards' rows to merge"), out);
    }

    @Test
    void withTheGateOffTheHeapRunsOut() throws Exception {
        String out = fill(List.of("-Dashlar.heapFullPercent=0"));
        assertTrue(out.startsWith("ran out"), out);
    }

    /** What {@link Filler} printed, run with a 64 MiB heap under ZGC, as bin/ashlar runs the proxy. */
    private static String fill(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx64m", "-XX:+UseZGC", "-cp", System.getProperty("java.class.path")));
        command.addAll(options);
        command.add(Filler.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the filler did not end");
        String text = new String(output, StandardCharsets.UTF_8).strip();
        assertEquals(0, process.exitValue(), text);
        return text;
    }

    /** Charges and keeps rows of 100 bytes, with garbage between them, until the budget or the heap says no. */
    static final class Filler {

        public static void main(String[] args) {
            MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE, "proxy-statement-memory-limit");
            List<byte[][]> held = new ArrayList<>();
            try {
                for (int i = 0; ; i++) {
                    byte[][] row = {new byte[100], Integer.toString(i).getBytes(StandardCharsets.US_ASCII)};
                    budget.charge(MemoryBudget.rowBytes(row));
                    held.add(row);
                    if ((i & 7) == 0) {
                        new byte[1024].clone(); // what a statement's work leaves behind
                    }
                }
            } catch (MemoryBudget.MemoryLimitExceededException e) {
                int rows = held.size();
                held = null;
                System.out.println("failed: " + e.getMessage() + " (" + rows + " rows)");
            } catch (OutOfMemoryError e) {
                held = null;
                System.out.println("ran out");
            }
        }
    }
}
