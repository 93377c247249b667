package io.ashlar.bootstrap.drivers;

import static org.junit.jupiter.api.Assertions.fail;

import io.ashlar.bootstrap.TempTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The Python driver suites of {@code src/test/python} (asyncpg and psycopg 3, the drivers Python users run) against
 * {@link DriverDatabases}: each pytest case becomes one JUnit test that fails with pytest's own report of it.
 *
 * <p>The drivers come from PyPI into a virtual environment under {@code target/pyvenv}, made with {@code python3 -m
 * venv} and {@code pip install -r requirements.txt}, and made anew when requirements.txt changes. Python is part of
 * what the build needs (as the JDK is): a missing {@code python3}, a failing pip, a pytest run that crashes, times out
 * or collects nothing, each fails the build with the reason, never skips. {@code -Dashlar.python=PATH} names another
 * interpreter; {@code -Dashlar.pytest.args="-k asyncpg"} passes arguments to pytest.
 *
 * @see <a href="https://docs.pytest.org/en/stable/how-to/output.html#creating-junitxml-format-files">pytest --junitxml</a>
 */
final class PythonDriversTest {

    private static final Path SOURCES = Path.of("src", "test", "python");
    private static final Path REQUIREMENTS = SOURCES.resolve("requirements.txt");
    private static final Path VENV = Path.of("target", "pyvenv");
    private static final Path REPORTS = Path.of("target", "pytest");
    private static final long VENV_TIMEOUT_SECONDS = 600;

    /** The whole pytest run; each test bounds its own statements far tighter (support.py, HANG_SECONDS). */
    private static final long PYTEST_TIMEOUT_SECONDS = 420;

    /** pytest's exit codes: 0 all passed, 1 some failed; anything else means the run itself went wrong. */
    private static final int PYTEST_TESTS_FAILED = 1;

    @TestFactory
    List<DynamicTest> pythonDrivers() throws Exception {
        Path python = virtualEnvironment();
        Files.createDirectories(REPORTS);
        Path junitXml = REPORTS.resolve("drivers.xml").toAbsolutePath();
        Path log = REPORTS.resolve("pytest.log").toAbsolutePath();
        Files.deleteIfExists(junitXml);
        int exitCode;
        try (DriverDatabases databases = DriverDatabases.start()) {
            exitCode = runPytest(python, databases.environment(), junitXml, log);
        }
        List<DynamicTest> result = new ArrayList<>();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        List<PytestCase> cases = Files.exists(junitXml) ? PytestCase.read(junitXml) : List.of();
        result.add(DynamicTest.dynamicTest("pytest run", () -> {
            if (exitCode != 0 && exitCode != PYTEST_TESTS_FAILED) {
                fail("pytest exited with " + exitCode + " (2 interrupted, 3 internal error, 4 usage error, 5 no tests"
                        + " collected); its output (" + log + "):\n" + DriverProcesses.tail(output));
            }
            if (cases.isEmpty()) {
                fail("pytest reported no test case (" + junitXml + "); its output (" + log + "):\n" + DriverProcesses.tail(output));
            }
        }));
        for (PytestCase each : cases) {
            result.add(DynamicTest.dynamicTest(each.id(), () -> {
                if (each.problem() != null) {
                    fail(each.id() + " " + each.problem() + "\n" + each.report());
                }
            }));
        }
        return result;
    }

    /** The venv's interpreter, after making the venv if it is missing or was made by another interpreter or requirements.txt. */
    private static Path virtualEnvironment() throws IOException, InterruptedException {
        Path python = VENV.resolve("bin").resolve("python").toAbsolutePath();
        Path stamp = VENV.resolve("requirements.sha256");
        String interpreter = System.getProperty("ashlar.python", "python3");
        String wanted = DriverProcesses.sha256(interpreter + "\n" + Files.readString(REQUIREMENTS, StandardCharsets.UTF_8));
        if (Files.isExecutable(python) && Files.exists(stamp) && Files.readString(stamp).equals(wanted)) {
            return python;
        }
        TempTrees.delete(VENV);
        Path log = Files.createDirectories(REPORTS).resolve("venv.log");
        DriverProcesses.run(List.of(interpreter, "-m", "venv", VENV.toAbsolutePath().toString()), log, VENV_TIMEOUT_SECONDS,
                "making the Python virtual environment with '" + interpreter + " -m venv'"
                        + " (the driver tests need Python 3.9+ with its venv module: on Debian, apt-get install python3-venv;"
                        + " -Dashlar.python=PATH names another interpreter)");
        DriverProcesses.run(List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r",
                REQUIREMENTS.toAbsolutePath().toString()), log, VENV_TIMEOUT_SECONDS,
                "installing the Python packages of " + REQUIREMENTS + " from PyPI with pip");
        Files.writeString(stamp, wanted);
        return python;
    }

    private static int runPytest(Path python, Map<String, String> fixtures, Path junitXml, Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(python.toString(), "-m", "pytest",
                "-c", SOURCES.resolve("pytest.ini").toAbsolutePath().toString(),
                "--rootdir", SOURCES.toAbsolutePath().toString(),
                "--junitxml", junitXml.toString(), "-o", "junit_family=xunit2", "-o", "junit_logging=no",
                "-v", "--durations=10"));
        String extra = System.getProperty("ashlar.pytest.args", "").strip();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        command.add(SOURCES.toAbsolutePath().toString());
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(key -> key.startsWith("PG") || key.equals("PYTHONPATH") || key.equals("PYTHONHOME"));
        environment.putAll(fixtures);
        environment.put("PYTHONPYCACHEPREFIX", Path.of("target", "pycache").toAbsolutePath().toString());
        environment.put("PYTHONUNBUFFERED", "1");
        environment.put("PYTHONIOENCODING", "utf-8");
        return DriverProcesses.runSuite(builder, log, PYTEST_TIMEOUT_SECONDS, "pytest");
    }

    /**
     * One {@code <testcase>} of pytest's JUnit XML.
     *
     * @param id {@code file.py::test_name[parameters]}
     * @param problem null when it passed, else what went wrong ("failed: message", "error: ...", "was skipped: ...")
     * @param report pytest's report of the problem (traceback and assertion), empty when it passed
     */
    private record PytestCase(String id, String problem, String report) {

        static List<PytestCase> read(Path junitXml) throws Exception {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document document = factory.newDocumentBuilder().parse(junitXml.toFile());
            NodeList testcases = document.getElementsByTagName("testcase");
            List<PytestCase> result = new ArrayList<>();
            for (int i = 0; i < testcases.getLength(); i++) {
                Element testcase = (Element) testcases.item(i);
                String file = testcase.getAttribute("classname").replace('.', '/') + ".py";
                String id = file + "::" + testcase.getAttribute("name");
                String problem = null;
                String report = "";
                for (String kind : new String[] {"failure", "error", "skipped"}) {
                    NodeList found = testcase.getElementsByTagName(kind);
                    if (found.getLength() > 0) {
                        Element element = (Element) found.item(0);
                        problem = (kind.equals("skipped") ? "was skipped (the driver tests never skip)" : kind.equals("error")
                                ? "errored" : "failed") + ": " + element.getAttribute("message");
                        report = DriverProcesses.tail(element.getTextContent());
                        break;
                    }
                }
                result.add(new PytestCase(id, problem, report));
            }
            return result;
        }
    }
}
