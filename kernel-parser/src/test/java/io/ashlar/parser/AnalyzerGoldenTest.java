package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * SQL in, {@link StatementPrinter} description out, for a corpus of realistic statements of every
 * shape the analyzer models (including pgbench's and BenchmarkSQL's). A failure shows the actual
 * description, ready to paste into the golden file after checking it.
 */
class AnalyzerGoldenTest {
    private static final List<String> FILES = List.of("select.txt", "conditions.txt", "dml.txt", "ddl.txt",
            "utility.txt", "benchmarks.txt");

    @TestFactory
    Stream<DynamicTest> golden() throws IOException {
        boolean update = Boolean.getBoolean("golden.update");
        List<DynamicTest> tests = new ArrayList<>();
        for (String fileName : FILES) {
            GoldenFile file = GoldenFile.read(fileName);
            List<String> actual = new ArrayList<>();
            for (GoldenFile.Case c : file.cases()) {
                String description = StatementPrinter.describe(StatementAnalyzer.analyze(c.sql(), c.jdbc()));
                actual.add(description);
                tests.add(DynamicTest.dynamicTest(fileName + ": " + c.name(),
                        () -> assertEquals(c.expected(), description, () -> "SQL: " + c.sql() + "\nactual:\n" + description)));
            }
            if (update) {
                file.write(actual);
            }
        }
        return tests.stream();
    }
}
