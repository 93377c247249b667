package io.ashlar.bootstrap.drivers;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The Go driver suite of {@code src/test/go} (pgx v5) against {@link DriverDatabases}: each Go test and subtest
 * becomes one JUnit test that fails with the output Go printed for it.
 *
 * <p>pgx comes from the Go module proxy at the version go.mod and go.sum pin ({@code go mod download}, into the
 * machine's module cache); the suite runs where it is, {@code go test -json -count=1}, with go.mod read-only and no
 * toolchain download. Go is part of what the build needs: a missing {@code go}, a failing download, a suite that does
 * not build, crashes, times out or reports nothing, each fails the build with the reason, never skips.
 * {@code -Dashlar.go=PATH} names another go.
 */
final class GoDriversTest {

    private static final Path SOURCES = Path.of("src", "test", "go");
    private static final Path REPORTS = Path.of("target", "go-report");
    private static final long DOWNLOAD_TIMEOUT_SECONDS = 600;
    /** Building pgx and running every case; each case bounds itself far tighter (its context's timeout). */
    private static final long RUN_TIMEOUT_SECONDS = 600;

    /** The fields of one event of {@code go test -json} that the report needs (Go writes one JSON object a line). */
    private static final Pattern ACTION = Pattern.compile("\"Action\":\"(\\w+)\"");
    private static final Pattern TEST = Pattern.compile("\"Test\":\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern OUTPUT = Pattern.compile("\"Output\":\"((?:[^\"\\\\]|\\\\.)*)\"");

    @TestFactory
    List<DynamicTest> goDrivers() throws Exception {
        Files.createDirectories(REPORTS);
        String go = System.getProperty("ashlar.go", "go");
        DriverProcesses.run(List.of(go, "mod", "download"), REPORTS.resolve("download.log"), DOWNLOAD_TIMEOUT_SECONDS,
                "downloading pgx as " + SOURCES.resolve("go.mod") + " pins it, from the Go module proxy with 'go mod download'"
                        + " (the driver tests need Go 1.25+; -Dashlar.go=PATH names another go)", SOURCES);
        Path log = REPORTS.resolve("go-test.json").toAbsolutePath();
        int exitCode;
        try (DriverDatabases databases = DriverDatabases.start()) {
            ProcessBuilder builder = new ProcessBuilder(go, "test", "-json", "-count=1", "./...").directory(SOURCES.toFile());
            Map<String, String> environment = builder.environment();
            environment.keySet().removeIf(key -> key.startsWith("PG"));
            environment.put("GOFLAGS", "-mod=readonly");
            environment.put("GOTOOLCHAIN", "local");
            environment.putAll(databases.environment());
            exitCode = DriverProcesses.runSuite(builder, log, RUN_TIMEOUT_SECONDS,
                    "go test (the driver tests need Go 1.25+; -Dashlar.go=PATH names another go)");
        }
        Report report = Report.read(Files.readAllLines(log, StandardCharsets.UTF_8));
        List<DynamicTest> result = new ArrayList<>();
        result.add(DynamicTest.dynamicTest("go test run", () -> {
            if (report.cases.isEmpty()) {
                fail("go test reported no test (exit code " + exitCode + "); what it printed (" + log + "):\n"
                        + DriverProcesses.tail(report.packageOutput.toString()));
            }
            if (exitCode != 0 && !report.anyFailed()) {
                fail("go test exited with " + exitCode + " and no test failed; what it printed (" + log + "):\n"
                        + DriverProcesses.tail(report.packageOutput.toString()));
            }
        }));
        for (Map.Entry<String, Case> each : report.cases.entrySet()) {
            Case test = each.getValue();
            result.add(DynamicTest.dynamicTest(each.getKey(), () -> {
                if (test.action == null) {
                    fail(each.getKey() + " did not finish:\n" + DriverProcesses.tail(test.output.toString()));
                } else if (test.action.equals("skip")) {
                    fail(each.getKey() + " was skipped (the driver tests never skip):\n" + DriverProcesses.tail(test.output.toString()));
                } else if (!test.action.equals("pass")) {
                    fail(each.getKey() + " failed:\n" + DriverProcesses.tail(test.output.toString()));
                }
            }));
        }
        return result;
    }

    /** One test of the run: how it ended (pass, fail, skip; null while it runs) and what it printed. */
    private static final class Case {
        String action;
        final StringBuilder output = new StringBuilder();
    }

    /** The tests of a {@code go test -json} run by name (subtests as {@code Parent/child}), in the order they started. */
    private static final class Report {
        final Map<String, Case> cases = new LinkedHashMap<>();
        /** What Go printed outside any test: build errors, the package's summary. */
        final StringBuilder packageOutput = new StringBuilder();

        static Report read(List<String> lines) {
            Report result = new Report();
            for (String line : lines) {
                Matcher action = ACTION.matcher(line);
                if (!line.startsWith("{") || !action.find()) {
                    result.packageOutput.append(line).append('\n'); // not an event: go's own message (a build failure)
                    continue;
                }
                Matcher test = TEST.matcher(line);
                Matcher output = OUTPUT.matcher(line);
                String text = output.find() ? unescape(output.group(1)) : null;
                if (!test.find()) {
                    if (text != null) {
                        result.packageOutput.append(text);
                    }
                    continue;
                }
                Case each = result.cases.computeIfAbsent(unescape(test.group(1)), name -> new Case());
                switch (action.group(1)) {
                    case "pass", "fail", "skip" -> each.action = action.group(1);
                    case "output" -> each.output.append(text == null ? "" : text);
                    default -> {
                        // run, pause, cont, start, bench: no outcome
                    }
                }
            }
            return result;
        }

        boolean anyFailed() {
            for (Case each : cases.values()) {
                if (!"pass".equals(each.action)) {
                    return true;
                }
            }
            return false;
        }

        /** A JSON string's content as Go's encoder writes it (\", \\, \n, \t, \r, \\uXXXX). */
        private static String unescape(String json) {
            StringBuilder result = new StringBuilder(json.length());
            for (int i = 0; i < json.length(); i++) {
                char c = json.charAt(i);
                if (c != '\\' || i + 1 >= json.length()) {
                    result.append(c);
                    continue;
                }
                char next = json.charAt(++i);
                switch (next) {
                    case 'n' -> result.append('\n');
                    case 't' -> result.append('\t');
                    case 'r' -> result.append('\r');
                    case 'b' -> result.append('\b');
                    case 'f' -> result.append('\f');
                    case 'u' -> {
                        if (i + 4 < json.length()) {
                            result.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
                            i += 4;
                        }
                    }
                    default -> result.append(next); // \" \\ \/
                }
            }
            return result.toString();
        }
    }
}
