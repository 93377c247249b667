package io.ashlar.bench.tpcc;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints the first few transaction errors of a run (terminal, transaction, the statement that
 * failed, SQLSTATE and message) and counts the rest silently, so that a statement failing through
 * a proxy is named without flooding the output.
 */
final class ErrorLog {

    private final PrintStream out;
    private final int limit;
    private final AtomicInteger printed = new AtomicInteger();

    ErrorLog(PrintStream out, int limit) {
        this.out = out;
        this.limit = limit;
    }

    void report(int terminal, TransactionType type, String statement, SQLException error) {
        int number = printed.incrementAndGet();
        if (number > limit) {
            return;
        }
        StringBuilder line = new StringBuilder(200).append("ERROR terminal ").append(terminal).append(' ')
                .append(type.displayName()).append(" at ").append(statement).append(": SQLSTATE ")
                .append(error.getSQLState()).append(": ").append(error.getMessage());
        for (SQLException next = error.getNextException(); next != null; next = next.getNextException()) {
            line.append(" / next: ").append(next.getSQLState()).append(": ").append(next.getMessage());
        }
        if (number == limit) {
            line.append(" (further errors are counted, not printed)");
        }
        out.println(line);
    }
}
