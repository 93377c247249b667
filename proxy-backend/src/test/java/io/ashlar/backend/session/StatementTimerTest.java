package io.ashlar.backend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StatementTimerTest {

    /** Values as pg_settings gives them (milliseconds) and as a client's SET or startup packet may write them. */
    @Test
    void timeoutValuesReadAsPostgresqlReadsThem() {
        assertEquals(1500, StatementTimer.millis("1500"));
        assertEquals(1500, StatementTimer.millis("1.5s"));
        assertEquals(1500, StatementTimer.millis(" 1500ms "));
        assertEquals(120_000, StatementTimer.millis("2min"));
        assertEquals(3_600_000, StatementTimer.millis("1h"));
        assertEquals(86_400_000, StatementTimer.millis("1d"));
        assertEquals(2, StatementTimer.millis("2000us"));
        assertEquals(0, StatementTimer.millis("0"));
        assertEquals(0, StatementTimer.millis(null));
        assertEquals(0, StatementTimer.millis("soon"));
        assertEquals(0, StatementTimer.millis("5 fortnights"));
    }
}
