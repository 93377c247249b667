package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.route.rule.ShardingRules;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Golden route cases: a rule file, SQL and parameters in; the route kind and units (data source, logic to actual
 * tables, INSERT row subsets, generated keys) or the refusal out. Files are {@code src/test/resources/route/*.txt}:
 * <pre>
 * rules: sharding.yaml          (the rule file of the following cases, under route/rules/)
 * === name
 * SQL, one or more lines
 * params: 1, 7L, 'text', null, 2.5, date:2024-01-01, ts:2024-01-01T10:00, tstz:2024-01-01T10:00+01:00   (optional)
 *         typed:'text' (text of a known type), unreadable:22P03 (a value the proxy could not read)
 * ---
 * expected output (see {@link #print})
 * </pre>
 * A failing case prints its actual output, ready to paste; {@code -Dgolden.update=true} rewrites every file from
 * the actual output (review the diff: a golden file is only worth what its human check was).
 */
class RouteGoldenTest {

    private static final Path ROOT = Path.of("src/test/resources/route");

    private final RouteEngine engine = new RouteEngine();

    private final Map<String, ShardingRules> rules = new HashMap<>();

    @TestFactory
    Stream<DynamicTest> golden() throws IOException {
        boolean update = Boolean.getBoolean("golden.update");
        List<DynamicTest> tests = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(ROOT)) {
            files = list.filter(each -> each.toString().endsWith(".txt")).sorted().toList();
        }
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            StringBuilder rewritten = new StringBuilder();
            String rulesName = "";
            int i = 0;
            while (i < lines.size()) {
                String line = lines.get(i);
                if (line.startsWith("rules: ")) {
                    rulesName = line.substring("rules: ".length()).trim();
                    rewritten.append(line).append('\n');
                    i++;
                    continue;
                }
                if (!line.startsWith("=== ")) {
                    rewritten.append(line).append('\n');
                    i++;
                    continue;
                }
                String name = line.substring(4).trim();
                rewritten.append(line).append('\n');
                i++;
                StringBuilder sql = new StringBuilder();
                String params = "";
                while (i < lines.size() && !lines.get(i).equals("---")) {
                    if (lines.get(i).startsWith("params: ")) {
                        params = lines.get(i).substring("params: ".length());
                    } else {
                        sql.append(sql.isEmpty() ? "" : "\n").append(lines.get(i));
                    }
                    rewritten.append(lines.get(i)).append('\n');
                    i++;
                }
                i++;
                StringBuilder expected = new StringBuilder();
                while (i < lines.size() && !lines.get(i).startsWith("=== ") && !lines.get(i).startsWith("rules: ")) {
                    expected.append(lines.get(i)).append('\n');
                    i++;
                }
                String actual = run(rulesName, sql.toString(), params);
                rewritten.append("---\n").append(actual).append('\n');
                String want = expected.toString().strip() + "\n";
                String caseSql = sql.toString();
                tests.add(DynamicTest.dynamicTest(file.getFileName() + ": " + name,
                        () -> assertEquals(want, actual, () -> "SQL: " + caseSql + "\nactual:\n" + actual)));
            }
            if (update) {
                Files.writeString(file, rewritten.toString().strip() + "\n", StandardCharsets.UTF_8);
            }
        }
        return tests.stream();
    }

    private String run(String rulesName, String sql, String params) {
        try {
            ShardingRules compiled = rules.computeIfAbsent(rulesName, name -> {
                try {
                    return RuleYaml.compile(ROOT.resolve("rules").resolve(name));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            AnalyzedStatement statement = StatementAnalyzer.analyze(sql, sql.contains("?"));
            return print(engine.route(statement, parameters(params), compiled));
        } catch (RouteException e) {
            return "ERROR " + e.sqlState() + " " + e.getMessage() + "\n"
                    + (e.crossShardKey().isPresent() ? "ENFORCED BY THE PROXY (ALTER TABLE ... ADD FOREIGN KEY)\n" : "");
        }
    }

    /**
     * <pre>
     * KIND
     * ds_0: t_order -> t_order_0, t_item -> t_item_0 rows 0 2
 * rows must stay on units 1
     * keys order_id: 2 Long
     * </pre>
     */
    static String print(RouteResult result) {
        StringBuilder text = new StringBuilder(result.kind().name()).append('\n');
        for (RouteUnit unit : result.units()) {
            text.append(unit.dataSource()).append(':');
            for (int i = 0; i < unit.tables().size(); i++) {
                TableMapping mapping = unit.tables().get(i);
                text.append(i == 0 ? " " : ", ").append(mapping.logicTable()).append(" -> ").append(mapping.actualTable());
            }
            if (unit.hasRowSubset()) {
                text.append(" rows");
                for (int row : unit.insertRows()) {
                    text.append(' ').append(row);
                }
            }
            text.append('\n');
        }
        if (result.rowsStay() != null) {
            text.append("rows must stay on units");
            for (int unit : result.rowsStay().units()) {
                text.append(' ').append(unit);
            }
            text.append('\n');
        }
        result.generatedKeys().ifPresent(keys -> text.append("keys ").append(keys.column()).append(": ").append(keys.values().size()).append(' ')
                .append(keys.values().get(0).getClass().getSimpleName()).append('\n'));
        return text.toString();
    }

    static RouteParameters parameters(String text) {
        List<Object> values = new ArrayList<>();
        List<Boolean> typed = new ArrayList<>();
        if (!text.isBlank()) {
            for (String each : split(text)) {
                String token = each.trim();
                typed.add(token.startsWith("typed:"));
                values.add(value(token.startsWith("typed:") ? token.substring("typed:".length()) : token));
            }
        }
        return new RouteParameters() {
            @Override
            public int count() {
                return values.size();
            }

            @Override
            public Object value(int index) {
                return values.get(index);
            }

            @Override
            public boolean typed(int index) {
                return typed.get(index);
            }
        };
    }

    private static List<String> split(String text) {
        List<String> result = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                result.add(text.substring(start, i));
                start = i + 1;
            }
        }
        result.add(text.substring(start));
        return result;
    }

    private static Object value(String text) {
        if (text.equals("null")) {
            return null;
        }
        if (text.startsWith("'")) {
            return text.substring(1, text.length() - 1);
        }
        if (text.startsWith("date:")) {
            return LocalDate.parse(text.substring(5));
        }
        if (text.startsWith("unreadable:")) {
            return new UnreadableValue(text.substring("unreadable:".length()), "is 3 bytes, but a binary int4 is 4");
        }
        if (text.startsWith("tstz:")) {
            return OffsetDateTime.parse(text.substring(5));
        }
        if (text.startsWith("ts:")) {
            return LocalDateTime.parse(text.substring(3));
        }
        if (text.endsWith("L")) {
            return Long.valueOf(text.substring(0, text.length() - 1));
        }
        if (text.contains(".")) {
            return new BigDecimal(text);
        }
        return Integer.valueOf(text);
    }
}
