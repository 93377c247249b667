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

    /**
     * A simple query string is lexed once to split it, and its first statement analysed from those
     * tokens ({@link io.ashlar.parser.lexer.TokenList#prefix}): every golden statement, followed by
     * a {@code ;} and more text, must be analysed exactly as its text alone is.
     */
    @TestFactory
    Stream<DynamicTest> analysedFromTheTokensOfTheQueryStringItStarts() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String fileName : FILES) {
            for (GoldenFile.Case c : GoldenFile.read(fileName).cases()) {
                if (c.jdbc()) {
                    continue;
                }
                String alone = StatementPrinter.describe(StatementAnalyzer.analyze(c.sql()));
                tests.add(DynamicTest.dynamicTest(fileName + ": " + c.name(), () -> {
                    for (String after : List.of(";", " ; ", ";SELECT 2", "; -- done")) {
                        String query = c.sql() + after;
                        io.ashlar.parser.lexer.TokenList tokens = io.ashlar.parser.lexer.Lexer.tokenize(query);
                        List<io.ashlar.parser.lexer.StatementRange> ranges = io.ashlar.parser.lexer.StatementSplitter.split(tokens);
                        if (ranges.isEmpty()) {
                            continue; // nothing but comments: the session answers EmptyQueryResponse
                        }
                        io.ashlar.parser.lexer.StatementRange first = ranges.get(0);
                        if (first.start() != 0) {
                            continue; // led by whitespace: the text is analysed on its own
                        }
                        String text = first.text(query);
                        assertEquals(StatementPrinter.describe(StatementAnalyzer.analyze(text)),
                                StatementPrinter.describe(StatementAnalyzer.analyze(tokens.prefix(first.end(), first.endToken()))),
                                () -> "query string: " + query);
                        if (text.equals(c.sql())) {
                            assertEquals(alone, StatementPrinter.describe(StatementAnalyzer.analyze(tokens.prefix(first.end(), first.endToken()))));
                        }
                    }
                }));
            }
        }
        return tests.stream();
    }
}
