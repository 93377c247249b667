package io.ashlar.bootstrap;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The log's level and format from the configuration directory's {@code logging.properties}, which ops edit as
 * ShardingSphere's ship a logback.xml: {@code level} (trace, debug, info, warn, error, off), {@code level.<logger>}
 * for one logger or package ({@code level.ShardingSphere-SQL}, {@code level.io.ashlar.slow-query}), {@code file}
 * ({@code System.err}, the default, {@code System.out}, or a path), {@code date-format} (a
 * {@link java.text.SimpleDateFormat} pattern, empty for none), {@code logger-name} ({@code short}, {@code full},
 * {@code none}) and {@code thread-name} ({@code true}/{@code false}); keys of slf4j-simple itself
 * ({@code org.slf4j.simpleLogger.*}) pass through.
 *
 * <p>The log stays slf4j-simple's, one line per event: a backend such as logback would bring rolling files and JSON
 * layouts, which a proxy whose output goes to journald or a container's log collector does not need, at the price
 * of a dependency and a second configuration language. slf4j-simple reads system properties before its classpath
 * defaults, so this sets them before the first logger is made.
 *
 * @see <a href="https://www.slf4j.org/api/org/slf4j/simple/SimpleLogger.html">slf4j-simple's settings</a>
 */
final class LoggingSetup {

    static final String FILE_NAME = "logging.properties";
    private static final String PREFIX = "org.slf4j.simpleLogger.";

    private LoggingSetup() {
    }

    /**
     * Applies {@code conf/logging.properties} if there is one; must run before anything logs.
     *
     * @return a problem with the file, to be told once the log works; null for none
     */
    static String apply(Path conf) {
        Path file = conf.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            return file + " is not read: " + e.getMessage();
        }
        StringBuilder problems = new StringBuilder();
        for (Map.Entry<Object, Object> each : properties.entrySet()) {
            String key = each.getKey().toString().strip();
            String value = each.getValue().toString().strip();
            String problem = set(key, value);
            if (problem != null) {
                problems.append(problems.isEmpty() ? "" : "; ").append(problem);
            }
        }
        return problems.isEmpty() ? null : file + ": " + problems;
    }

    private static String set(String key, String value) {
        if (key.startsWith(PREFIX)) {
            System.setProperty(key, value);
            return null;
        }
        if (key.equals("level") || key.startsWith("level.")) {
            String level = value.toLowerCase(Locale.ROOT);
            if (!level.matches("trace|debug|info|warn|error|off")) {
                return key + ": unknown level '" + value + "' (trace, debug, info, warn, error, off)";
            }
            System.setProperty(key.equals("level") ? PREFIX + "defaultLogLevel" : PREFIX + "log." + key.substring(6), level);
            return null;
        }
        switch (key) {
            case "file" -> System.setProperty(PREFIX + "logFile", value.isEmpty() ? "System.err" : value);
            case "date-format" -> {
                System.setProperty(PREFIX + "showDateTime", Boolean.toString(!value.isEmpty()));
                if (!value.isEmpty()) {
                    System.setProperty(PREFIX + "dateTimeFormat", value);
                }
            }
            case "logger-name" -> {
                switch (value.toLowerCase(Locale.ROOT)) {
                    case "short" -> {
                        System.setProperty(PREFIX + "showShortLogName", "true");
                        System.setProperty(PREFIX + "showLogName", "false");
                    }
                    case "full" -> {
                        System.setProperty(PREFIX + "showShortLogName", "false");
                        System.setProperty(PREFIX + "showLogName", "true");
                    }
                    case "none" -> {
                        System.setProperty(PREFIX + "showShortLogName", "false");
                        System.setProperty(PREFIX + "showLogName", "false");
                    }
                    default -> {
                        return key + ": expected short, full or none, got '" + value + "'";
                    }
                }
            }
            case "thread-name" -> System.setProperty(PREFIX + "showThreadName", Boolean.toString(Boolean.parseBoolean(value)));
            default -> {
                return "unknown key '" + key + "' (level, level.<logger>, file, date-format, logger-name, thread-name)";
            }
        }
        return null;
    }
}
