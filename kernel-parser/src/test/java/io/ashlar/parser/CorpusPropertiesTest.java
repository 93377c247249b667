package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.TableReference;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Properties that must hold for every statement of the golden corpus, and for every mangled
 * version of it: analysis never fails, and table ranges are exact enough to rewrite by splicing.
 */
class CorpusPropertiesTest {

    private static List<GoldenFile.Case> corpus() throws IOException {
        List<GoldenFile.Case> result = new ArrayList<>();
        for (String file : List.of("select.txt", "conditions.txt", "dml.txt", "ddl.txt", "utility.txt", "benchmarks.txt")) {
            result.addAll(GoldenFile.read(file).cases());
        }
        return result;
    }

    @Test
    void rangesAreInsideTheTextAndCoverTheNames() throws IOException {
        for (GoldenFile.Case c : corpus()) {
            AnalyzedStatement statement = StatementAnalyzer.analyze(c.sql(), c.jdbc());
            assertFalse(statement.gaps().contains(AnalysisGap.ANALYSIS_FAILED), c.sql());
            for (TableReference table : statement.tables()) {
                assertTrue(table.range().end() <= c.sql().length(), c.sql());
                assertTrue(table.range().start() <= table.nameRange().start()
                        && table.nameRange().end() == table.range().end(), c.sql());
                String written = table.nameRange().text(c.sql());
                String normalized = table.quoted() ? written.substring(1, written.length() - 1) : written.toLowerCase();
                assertEquals(table.name().name(), normalized, c.sql());
            }
        }
    }

    @Test
    void renamingEveryTableOccurrenceByItsRangeGivesTheSameShapeWithNewNames() throws IOException {
        int checked = 0;
        for (GoldenFile.Case c : corpus()) {
            AnalyzedStatement statement = StatementAnalyzer.analyze(c.sql(), c.jdbc());
            if (!statement.isComplete() || statement.tables().isEmpty()) {
                continue;
            }
            List<TableReference> tables = new ArrayList<>(statement.tables());
            tables.sort(Comparator.comparingInt(table -> table.nameRange().start()));
            StringBuilder rewritten = new StringBuilder();
            int copied = 0;
            for (TableReference table : tables) {
                rewritten.append(c.sql(), copied, table.nameRange().start());
                rewritten.append(table.quoted() ? "\"" + table.name().name() + "_0\"" : table.name().name() + "_0");
                copied = table.nameRange().end();
            }
            rewritten.append(c.sql().substring(copied));
            AnalyzedStatement again = StatementAnalyzer.analyze(rewritten.toString(), c.jdbc());
            assertEquals(statement.tables().size(), again.tables().size(), rewritten.toString());
            for (int i = 0; i < statement.tables().size(); i++) {
                TableReference before = statement.tables().get(i);
                TableReference after = again.tables().get(i);
                assertEquals(before.name().name() + "_0", after.name().name(), rewritten.toString());
                assertEquals(before.role(), after.role(), rewritten.toString());
                assertEquals(before.block(), after.block(), rewritten.toString());
            }
            assertEquals(statement.blocks().size(), again.blocks().size(), rewritten.toString());
            assertEquals(statement.kind(), again.kind());
            checked++;
        }
        assertTrue(checked > 100, "checked " + checked);
    }

    @Test
    void truncatedOrMangledStatementsNeverBreakTheAnalyzer() throws IOException {
        int analysed = 0;
        for (GoldenFile.Case c : corpus()) {
            TokenList tokens = Lexer.tokenize(c.sql(), c.jdbc());
            for (int cut = 0; cut <= tokens.size(); cut++) {
                int end = cut == tokens.size() ? c.sql().length() : tokens.start(cut);
                analysed += analyseSafely(c.sql().substring(0, end), c.jdbc());
            }
            for (int drop = 0; drop < tokens.size(); drop++) {
                String mangled = c.sql().substring(0, tokens.start(drop)) + " " + c.sql().substring(tokens.end(drop));
                analysed += analyseSafely(mangled, c.jdbc());
            }
        }
        assertTrue(analysed > 5000, "analysed " + analysed);
    }

    private static int analyseSafely(String sql, boolean jdbc) {
        try {
            AnalyzedStatement statement = StatementAnalyzer.analyze(sql, jdbc);
            assertFalse(statement.gaps().contains(AnalysisGap.ANALYSIS_FAILED), sql);
            StatementPrinter.describe(statement);
            return 1;
        } catch (SqlSyntaxException expected) {
            return 0;
        }
    }
}
