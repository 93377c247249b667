package io.ashlar.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** conf/logging.properties made into slf4j-simple's settings, and its mistakes named. */
final class LoggingSetupTest {

    private static final List<String> TOUCHED = List.of("defaultLogLevel", "log.ShardingSphere-SQL", "log.io.ashlar.slow-query",
            "logFile", "showDateTime", "dateTimeFormat", "showShortLogName", "showLogName", "showThreadName", "levelInBrackets");

    @AfterEach
    void clear() {
        for (String each : TOUCHED) {
            System.clearProperty("org.slf4j.simpleLogger." + each);
        }
    }

    @Test
    void theShippedFileSetsLevelsAndFormat() throws Exception {
        assertNull(LoggingSetup.apply(Path.of("../conf")));
        assertEquals("info", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel"));
        assertEquals("warn", System.getProperty("org.slf4j.simpleLogger.log.io.ashlar.slow-query"));
        assertEquals("info", System.getProperty("org.slf4j.simpleLogger.log.ShardingSphere-SQL"));
        assertEquals("System.err", System.getProperty("org.slf4j.simpleLogger.logFile"));
        assertEquals("yyyy-MM-dd HH:mm:ss.SSS", System.getProperty("org.slf4j.simpleLogger.dateTimeFormat"));
        assertEquals("true", System.getProperty("org.slf4j.simpleLogger.showShortLogName"));
        assertEquals("false", System.getProperty("org.slf4j.simpleLogger.showThreadName"));
    }

    @Test
    void noDateAFileAndSlf4jsOwnKeys(@TempDir Path conf) throws Exception {
        Files.writeString(conf.resolve("logging.properties"), """
                level = WARN
                date-format =
                file = /var/log/ashlar.log
                logger-name = full
                org.slf4j.simpleLogger.levelInBrackets = true
                """);
        assertNull(LoggingSetup.apply(conf));
        assertEquals("warn", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel"));
        assertEquals("false", System.getProperty("org.slf4j.simpleLogger.showDateTime"));
        assertEquals("/var/log/ashlar.log", System.getProperty("org.slf4j.simpleLogger.logFile"));
        assertEquals("true", System.getProperty("org.slf4j.simpleLogger.showLogName"));
        assertEquals("true", System.getProperty("org.slf4j.simpleLogger.levelInBrackets"));
    }

    @Test
    void mistakesAreNamedAndTheRestApplies(@TempDir Path conf) throws Exception {
        Files.writeString(conf.resolve("logging.properties"), "level = loud\nlevels.x = info\nthread-name = true\n");
        String problem = LoggingSetup.apply(conf);
        assertTrue(problem.contains("level: unknown level 'loud' (trace, debug, info, warn, error, off)"), problem);
        assertTrue(problem.contains("unknown key 'levels.x'"), problem);
        assertEquals("true", System.getProperty("org.slf4j.simpleLogger.showThreadName"));
        assertNull(LoggingSetup.apply(conf.resolve("nowhere")));
    }
}
