package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TpccOptionsTest {

    @Test
    void defaults() {
        TpccOptions options = TpccOptions.parse(new String[] {"run"});
        assertEquals("jdbc:postgresql://127.0.0.1:5433/tpcc", options.url());
        assertEquals("root", options.user());
        assertEquals(4, options.terminals());
        assertEquals(60, options.duration());
        assertEquals(10, options.warmup());
        assertTrue(options.fixedHome());
        assertTrue(options.indexes());
        assertFalse(options.drop());
        assertEquals(1, options.scaleDown());
    }

    @Test
    void everyOption() {
        TpccOptions options = TpccOptions.parse(new String[] {"all", "--url", "jdbc:postgresql://h:1/d", "--user", "u",
                "--password", "", "--warehouses", "3", "--scale-down", "10", "--loaders", "2", "--terminals", "8",
                "--duration", "5", "--warmup", "0", "--home", "random", "--drop", "--no-indexes", "--report-interval", "0"});
        assertEquals(new TpccOptions("all", "jdbc:postgresql://h:1/d", "u", "", 3, 10, 2, 8, 5, 0, false, true, false, 0),
                options);
    }

    @Test
    void mistakesAreNamed() {
        assertEquals("no command given", message());
        assertTrue(message("bench").startsWith("unknown command 'bench'"));
        assertEquals("unknown option '--terminal'", message("run", "--terminal", "4"));
        assertEquals("--duration needs a value", message("run", "--duration"));
        assertEquals("--duration must be at least 1", message("run", "--duration", "0"));
        assertEquals("--warehouses expects a whole number, got 'two'", message("load", "--warehouses", "two"));
        assertEquals("--home must be fixed or random, got 'home'", message("run", "--home", "home"));
        assertTrue(message("load", "--scale-down", "1000").startsWith("--scale-down must be between 1 and"));
    }

    private static String message(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> TpccOptions.parse(args)).getMessage();
    }
}
