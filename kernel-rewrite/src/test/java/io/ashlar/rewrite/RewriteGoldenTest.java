package io.ashlar.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ashlar.merge.plan.MergePlan;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.route.RouteException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Golden files of {@code src/test/resources/rewrite}: SQL, route units and parameters in, SQL per
 * unit and the merge plan out (format in {@link RewriteCase}). A failure prints the actual output
 * ready to paste; {@code -Dgolden.update=true} rewrites every expectation from the actual output
 * (then read the diff: a golden line nobody checked proves nothing).
 */
class RewriteGoldenTest {

    @TestFactory
    Stream<DynamicTest> golden() throws IOException {
        boolean update = Boolean.getBoolean("golden.update");
        List<Path> files;
        try (Stream<Path> listing = Files.list(RewriteCase.ROOT)) {
            files = listing.filter(path -> path.toString().endsWith(".txt")).sorted().toList();
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            List<String> actuals = new ArrayList<>();
            for (RewriteCase c : RewriteCase.read(file)) {
                String actual = run(c);
                actuals.add(actual);
                tests.add(DynamicTest.dynamicTest(file.getFileName() + ": " + c.name(), () -> assertEquals(c.expected(),
                        actual, () -> "case " + c.name() + "\nSQL: " + c.sql() + "\nactual, ready to paste:\n" + actual)));
            }
            if (update) {
                Files.writeString(file, RewriteCase.rewriteFile(file, actuals), StandardCharsets.UTF_8);
            }
        }
        return tests.stream();
    }

    static String run(RewriteCase c) {
        AnalyzedStatement statement = StatementAnalyzer.analyze(c.sql(), c.jdbc());
        StatementRewriter rewriter = StatementRewriter.of(statement);
        StringBuilder result = new StringBuilder();
        try {
            RewriteResult rewrite = rewriter.rewrite(c.route(), c.routeParameters());
            RewriteResult again = rewriter.rewrite(c.route(), c.routeParameters());
            for (int i = 0; i < rewrite.units().size(); i++) {
                RewrittenUnit unit = rewrite.units().get(i);
                if (!unit.sql().equals(again.units().get(i).sql())) {
                    result.append("!! second rewrite differs: ").append(again.units().get(i).sql()).append('\n');
                }
                result.append(unit.unit().dataSource()).append(": ").append(unit.sql()).append('\n');
                if (!unit.identityParameters(statement.parameterCount())) {
                    result.append("  parameters ").append(Arrays.toString(unit.parameterMap())).append('\n');
                }
            }
            if (rewrite.merge().isPresent()) {
                MergeTemplate merge = rewrite.merge().get();
                int[] types = c.types().orElseGet(() -> textColumns(statement, merge.derivedColumns()));
                if (types.length == 0) {
                    result.append("merge: ").append(merge.describe()).append('\n');
                } else {
                    MergePlan plan = merge.plan(types);
                    result.append("merge: ").append(plan.describe()).append('\n');
                    List<MergeTemplate.ResultType> resultTypes = merge.merge(types).resultTypes();
                    if (!resultTypes.isEmpty()) {
                        result.append("result types:");
                        for (MergeTemplate.ResultType each : resultTypes) {
                            result.append(' ').append(each.describe());
                        }
                        result.append('\n');
                    }
                }
            }
        } catch (RouteException e) {
            result.append("error ").append(e.sqlState()).append(": ").append(e.getMessage()).append('\n');
        } catch (RuntimeException e) {
            result.append("exception ").append(e).append('\n');
        }
        return result.toString();
    }

    /** One text column per select-list item and derived column; none (describe the symbolic plan) with a star. */
    private static int[] textColumns(AnalyzedStatement statement, int derived) {
        int visible = 0;
        if (statement.body() instanceof SelectStatement select) {
            for (ProjectionItem item : select.projections()) {
                visible++;
                if (item.kind().name().contains("STAR")) {
                    return new int[0];
                }
            }
        }
        int[] result = new int[visible + derived];
        Arrays.fill(result, 25);
        return result;
    }
}
