package io.ashlar.backend.session;

import static io.ashlar.backend.session.TransactionState.BLOCK;
import static io.ashlar.backend.session.TransactionState.FAILED_BLOCK;
import static io.ashlar.backend.session.TransactionState.FAILED_IMPLICIT;
import static io.ashlar.backend.session.TransactionState.IDLE;
import static io.ashlar.backend.session.TransactionState.IMPLICIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The transitions of a session's transaction, as PostgreSQL moves its own. */
final class TransactionStateTest {

    @Test
    void readyForQueryShowsTheClientsBlockOnly() {
        assertEquals('I', IDLE.status());
        assertEquals('T', BLOCK.status());
        assertEquals('E', FAILED_BLOCK.status());
        // The proxy's implicit transaction is invisible: the client is between statements.
        assertEquals('I', IMPLICIT.status());
        assertEquals('I', FAILED_IMPLICIT.status());
    }

    @Test
    void anErrorAbortsTheTransactionItRanIn() {
        assertEquals(FAILED_BLOCK, BLOCK.afterError());
        assertEquals(FAILED_IMPLICIT, IMPLICIT.afterError());
        assertEquals(IDLE, IDLE.afterError(), "a statement on its own fails alone");
        assertEquals(FAILED_BLOCK, FAILED_BLOCK.afterError());
        assertEquals(IMPLICIT, IMPLICIT.afterErrorInBlock());
        assertEquals(FAILED_BLOCK, BLOCK.afterErrorInBlock());
    }

    @Test
    void theEndOfAFailedTransactionLeavesNothingOfIt() {
        for (TransactionState state : TransactionState.values()) {
            assertEquals(IDLE, state.end(), state::name);
        }
        // The next implicit transaction starts afresh: it commits unless something in it fails.
        assertEquals(IMPLICIT, FAILED_IMPLICIT.end().beginImplicit());
        assertFalse(FAILED_BLOCK.end().beginImplicit().failed());
    }

    @Test
    void beginKeepsAPipelinesTransactionAndWarnsInsideABlock() {
        assertEquals(BLOCK, IDLE.begin());
        assertEquals(BLOCK, IMPLICIT.begin(), "the implicit transaction's data sources stay in the block");
        assertEquals(BLOCK, BLOCK.begin());
        assertEquals(FAILED_BLOCK, FAILED_BLOCK.begin());
        assertEquals(IMPLICIT, IDLE.beginImplicit());
        assertEquals(BLOCK, BLOCK.beginImplicit(), "inside a block nothing implicit opens");
        assertEquals(FAILED_IMPLICIT, FAILED_IMPLICIT.beginImplicit());
        assertEquals(BLOCK, IMPLICIT.becomeBlock());
        assertEquals(FAILED_BLOCK, FAILED_IMPLICIT.becomeBlock());
        assertEquals(BLOCK, FAILED_BLOCK.rolledBackToSavepoint());
    }

    @Test
    void aBackendsStatusSaysWhereAPooledSessionIs() {
        assertEquals(BLOCK, IDLE.backendReported('T'));
        assertEquals(FAILED_BLOCK, BLOCK.backendReported('E'));
        assertEquals(IDLE, FAILED_BLOCK.backendReported('I'));
        assertEquals(IMPLICIT, IMPLICIT.backendReported('T'));
        assertEquals(FAILED_IMPLICIT, IMPLICIT.backendReported('E'));
        // The proxy opened it, and the proxy ends it at the client's Sync.
        assertEquals(IMPLICIT, IMPLICIT.backendReported('I'));
        assertTrue(FAILED_IMPLICIT.backendReported('T').inImplicit());
    }
}
