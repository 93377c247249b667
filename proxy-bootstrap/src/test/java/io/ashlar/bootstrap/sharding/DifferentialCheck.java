package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.ashlar.bootstrap.sharding.CorpusEntry.Refusal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs one corpus statement through the proxy and against the reference and asserts that the client saw the same
 * thing (issue 3: "the same rows, the same values to the last digit, the same order where ORDER BY fixes one, and
 * the same SQLSTATE on error"). The proxy goes first: a statement the proxy refuses, as it may or must, is not run
 * against the reference, so that both sides keep the same rows.
 */
final class DifferentialCheck {

    /** How the client runs the statement. */
    enum Execution {
        /** A plain Statement, or a PreparedStatement when the entry has parameters: run once. */
        ONCE,
        /** A PreparedStatement run twice (with prepareThreshold=1 both runs use a named server-side statement). */
        PREPARED_TWICE
    }

    private DifferentialCheck() {
    }

    static void verify(ConnectionPair pair, CorpusEntry entry, Execution execution) throws SQLException {
        List<StatementOutcome> proxied = run(pair.proxy(), entry, execution);
        StatementOutcome first = proxied.get(0);
        if (entry.refusal() == Refusal.REQUIRED) {
            assertRefused(pair, entry, execution, first);
            return;
        }
        if (entry.refusal() == Refusal.ALLOWED && "0A000".equals(first.sqlState())) {
            Assumptions.abort("refused (allowed): " + first.message());
        }
        List<StatementOutcome> expected = run(pair.reference(), entry, execution);
        for (int i = 0; i < proxied.size(); i++) {
            StatementOutcome actual = proxied.get(i);
            StatementOutcome reference = expected.get(Math.min(i, expected.size() - 1));
            String run = proxied.size() == 1 ? "" : " (execution " + (i + 1) + ")";
            assertEquals(reference.comparable(entry), actual.comparable(entry), () -> entry.displayName() + run
                    + "\nSQL: " + entry.text() + (entry.parameters().isEmpty() ? "" : "\nparameters: " + entry.parameters())
                    + "\nPostgreSQL: " + reference.summary() + "\nproxy:      " + actual.summary());
        }
    }

    /** Both sides run a statement the same way, so that pgjdbc asks for the same formats (binary after a named Describe). */
    private static List<StatementOutcome> run(Connection connection, CorpusEntry entry, Execution execution) {
        return execution == Execution.ONCE
                ? List.of(StatementOutcome.run(connection, entry.text(), entry.parameters(), false))
                : StatementOutcome.runRepeatedly(connection, entry.text(), entry.parameters(), 2);
    }

    private static void assertRefused(ConnectionPair pair, CorpusEntry entry, Execution execution, StatementOutcome outcome)
            throws SQLException {
        if (!"0A000".equals(outcome.sqlState())) {
            StatementOutcome reference = run(pair.reference(), entry, execution).get(0);
            boolean same = reference.comparable(entry).equals(outcome.comparable(entry));
            fail(entry.displayName() + ": the proxy must refuse this with SQLSTATE 0A000, but gave " + outcome.summary()
                    + (same ? ", which happens to equal PostgreSQL's answer on these rows"
                            : ", where PostgreSQL gives " + reference.summary() + ": a wrong answer"));
        }
        String message = outcome.message().toLowerCase(Locale.ROOT);
        for (String word : entry.refusalWords()) {
            if (!message.contains(word.toLowerCase(Locale.ROOT))) {
                fail(entry.displayName() + ": the refusal must name '" + word + "': " + outcome.message());
            }
        }
    }
}
