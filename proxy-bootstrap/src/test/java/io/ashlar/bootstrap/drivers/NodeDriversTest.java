package io.ashlar.bootstrap.drivers;

import static org.junit.jupiter.api.Assertions.fail;

import io.ashlar.bootstrap.TempTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The Node.js driver suites of {@code src/test/node} (node-postgres and postgres.js) against {@link DriverDatabases}:
 * each {@code node:test} case becomes one JUnit test that fails with node's own report of it.
 *
 * <p>The drivers come from the npm registry, at the versions package-lock.json pins, into {@code target/node} with
 * {@code npm ci}, done anew when the lock changes; the suites are copied beside them and run there with
 * {@code node --test}. Node.js 20 or newer is part of what the build needs: a missing {@code node} or {@code npm}, a
 * failing install, a run that crashes, times out or reports nothing, each fails the build with the reason, never
 * skips. {@code -Dashlar.node=PATH} and {@code -Dashlar.npm=PATH} name other ones.
 */
final class NodeDriversTest {

    private static final Path SOURCES = Path.of("src", "test", "node");
    private static final Path WORK = Path.of("target", "node");
    private static final Path REPORTS = Path.of("target", "node-report");
    private static final long INSTALL_TIMEOUT_SECONDS = 600;
    /** The whole run; each case bounds itself far tighter (its timeout). */
    private static final long RUN_TIMEOUT_SECONDS = 300;

    @TestFactory
    List<DynamicTest> nodeDrivers() throws Exception {
        List<Path> suites = install();
        Files.createDirectories(REPORTS);
        Path junitXml = REPORTS.resolve("drivers.xml").toAbsolutePath();
        Path log = REPORTS.resolve("node.log").toAbsolutePath();
        Files.deleteIfExists(junitXml);
        int exitCode;
        try (DriverDatabases databases = DriverDatabases.start()) {
            exitCode = runNode(suites, databases.environment(), junitXml, log);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        List<Case> cases = Files.exists(junitXml) ? Case.read(junitXml) : List.of();
        List<DynamicTest> result = new ArrayList<>();
        result.add(DynamicTest.dynamicTest("node --test run", () -> {
            if (cases.isEmpty()) {
                fail("node --test reported no test case (exit code " + exitCode + ", " + junitXml + "); its output (" + log
                        + "):\n" + DriverProcesses.tail(output));
            }
            boolean failed = false;
            for (Case each : cases) {
                failed |= each.problem() != null;
            }
            if (exitCode != 0 && !failed) {
                fail("node --test exited with " + exitCode + " and no case failed; its output (" + log + "):\n"
                        + DriverProcesses.tail(output));
            }
        }));
        for (Case each : cases) {
            result.add(DynamicTest.dynamicTest(each.name(), () -> {
                if (each.problem() != null) {
                    fail(each.name() + " failed: " + each.problem() + "\n" + each.report());
                }
            }));
        }
        return result;
    }

    /** The suites, copied into target/node beside the drivers, which are installed when missing or the lock changed. */
    private static List<Path> install() throws IOException, InterruptedException {
        Path lock = SOURCES.resolve("package-lock.json");
        Path stamp = WORK.resolve("lock.sha256");
        String wanted = DriverProcesses.sha256(Files.readString(lock, StandardCharsets.UTF_8));
        if (!Files.isDirectory(WORK.resolve("node_modules")) || !Files.exists(stamp) || !Files.readString(stamp).equals(wanted)) {
            TempTrees.delete(WORK);
            Files.createDirectories(WORK);
            Files.copy(SOURCES.resolve("package.json"), WORK.resolve("package.json"));
            Files.copy(lock, WORK.resolve("package-lock.json"));
            Path log = Files.createDirectories(REPORTS).resolve("npm.log");
            DriverProcesses.run(List.of(System.getProperty("ashlar.npm", "npm"), "ci", "--no-audit", "--no-fund",
                    "--prefix", WORK.toAbsolutePath().toString()), log, INSTALL_TIMEOUT_SECONDS,
                    "installing the Node.js drivers of " + lock + " from the npm registry with 'npm ci'"
                            + " (the driver tests need Node.js 20+ with npm; -Dashlar.npm=PATH names another npm)");
            Files.writeString(stamp, wanted);
        }
        List<Path> result = new ArrayList<>();
        try (Stream<Path> files = Files.list(SOURCES)) {
            for (Path each : files.filter(path -> path.getFileName().toString().endsWith(".test.mjs")).sorted().toList()) {
                Path copy = WORK.resolve(each.getFileName());
                Files.copy(each, copy, StandardCopyOption.REPLACE_EXISTING);
                result.add(copy.toAbsolutePath());
            }
        }
        if (result.isEmpty()) {
            fail("no *.test.mjs suite in " + SOURCES.toAbsolutePath());
        }
        return result;
    }

    private static int runNode(List<Path> suites, Map<String, String> fixtures, Path junitXml, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(System.getProperty("ashlar.node", "node"), "--test",
                "--test-reporter=junit", "--test-reporter-destination=" + junitXml,
                "--test-reporter=spec", "--test-reporter-destination=stdout"));
        for (Path each : suites) {
            command.add(each.toString());
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(WORK.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(key -> key.startsWith("PG") || key.startsWith("NODE_"));
        environment.putAll(fixtures);
        return DriverProcesses.runSuite(builder, log, RUN_TIMEOUT_SECONDS,
                "node --test (the driver tests need Node.js 20+; -Dashlar.node=PATH names another node)");
    }

    /**
     * One {@code <testcase>} of node's JUnit report.
     *
     * @param problem null when it passed, else its failure's message
     * @param report the failure's whole text, empty when it passed
     */
    private record Case(String name, String problem, String report) {

        static List<Case> read(Path junitXml) throws Exception {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document document = factory.newDocumentBuilder().parse(junitXml.toFile());
            NodeList testcases = document.getElementsByTagName("testcase");
            List<Case> result = new ArrayList<>();
            for (int i = 0; i < testcases.getLength(); i++) {
                Element testcase = (Element) testcases.item(i);
                NodeList failures = testcase.getElementsByTagName("failure");
                NodeList skipped = testcase.getElementsByTagName("skipped");
                String problem = null;
                String report = "";
                if (failures.getLength() > 0) {
                    Element failure = (Element) failures.item(0);
                    problem = failure.getAttribute("message");
                    report = DriverProcesses.tail(failure.getTextContent());
                } else if (skipped.getLength() > 0) {
                    problem = "was skipped (the driver tests never skip)";
                }
                result.add(new Case(testcase.getAttribute("name"), problem, report));
            }
            return result;
        }
    }
}
