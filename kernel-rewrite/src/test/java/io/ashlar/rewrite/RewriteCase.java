package io.ashlar.rewrite;

import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One case of a rewrite golden file. The format, one case after another:
 * <pre>
 * === name
 * kind MULTI_QUERY                          (a RouteKind)
 * unit ds_0 t_order=t_order_0 rows=0,2      (one line per route unit: data source, logic=actual, INSERT rows)
 * keys order_id 7001 'abc'                  (generated keys, one per VALUES row; optional)
 * params 10 'text' null 2.5                 (parameter values: integers, decimals, 'strings', null; optional)
 * types 23 25 1700                          (type OIDs of the shard rows, for the merge; optional)
 * jdbc                                      (analyse ? as parameter markers; optional)
 * sql
 * the SQL, one or more lines
 * ---
 * expected output: per unit "ds: sql" (and "  parameters [..]" when they moved), then "merge: plan"
 * and, when RowDescription must differ from the shards', "result types: #column=oid(size,typmod) ...",
 * or "error SQLSTATE: message"
 * </pre>
 * Without {@code types}, the merge is described for shard rows of one text column per select-list
 * item plus the derived ones (a statement with {@code *} needs {@code types}).
 */
record RewriteCase(String name, RouteKind kind, List<RouteUnit> units, Optional<RouteResult.GeneratedKeys> keys,
                   List<Object> parameters, Optional<int[]> types, boolean jdbc, String sql, String expected) {

    static final Path ROOT = Path.of("src/test/resources/rewrite");

    RouteResult route() {
        return new RouteResult(kind, units, keys);
    }

    RouteParameters routeParameters() {
        List<Object> values = parameters;
        return new RouteParameters() {
            @Override
            public int count() {
                return values.size();
            }

            @Override
            public Object value(int index) {
                return values.get(index);
            }
        };
    }

    static List<RewriteCase> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<RewriteCase> result = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            if (!lines.get(i).startsWith("=== ")) {
                i++;
                continue;
            }
            String name = lines.get(i).substring(4).trim();
            i++;
            RouteKind kind = RouteKind.MULTI_QUERY;
            List<RouteUnit> units = new ArrayList<>();
            Optional<RouteResult.GeneratedKeys> keys = Optional.empty();
            List<Object> parameters = List.of();
            Optional<int[]> types = Optional.empty();
            boolean jdbc = false;
            while (i < lines.size() && !lines.get(i).equals("sql")) {
                String line = lines.get(i).trim();
                List<String> words = words(line);
                if (words.isEmpty()) {
                    i++;
                    continue;
                }
                switch (words.get(0)) {
                    case "kind" -> kind = RouteKind.valueOf(words.get(1));
                    case "unit" -> units.add(unit(words));
                    case "keys" -> {
                        List<Comparable<?>> values = new ArrayList<>();
                        for (Object value : values(words.subList(2, words.size()))) {
                            values.add((Comparable<?>) value);
                        }
                        keys = Optional.of(new RouteResult.GeneratedKeys(words.get(1), values));
                    }
                    case "params" -> parameters = values(words.subList(1, words.size()));
                    case "types" -> {
                        int[] oids = new int[words.size() - 1];
                        for (int k = 0; k < oids.length; k++) {
                            oids[k] = Integer.parseInt(words.get(k + 1));
                        }
                        types = Optional.of(oids);
                    }
                    case "jdbc" -> jdbc = true;
                    default -> throw new IllegalArgumentException(file + ": unknown line in case " + name + ": " + line);
                }
                i++;
            }
            i++;
            StringBuilder sql = new StringBuilder();
            while (i < lines.size() && !lines.get(i).equals("---")) {
                sql.append(sql.isEmpty() ? "" : "\n").append(lines.get(i));
                i++;
            }
            i++;
            StringBuilder expected = new StringBuilder();
            while (i < lines.size() && !lines.get(i).startsWith("=== ")) {
                expected.append(lines.get(i)).append('\n');
                i++;
            }
            result.add(new RewriteCase(name, kind, units, keys, parameters, types, jdbc, sql.toString(),
                    expected.toString().strip() + "\n"));
        }
        return result;
    }

    /** The file with each case's expected output replaced by {@code actual}. */
    static String rewriteFile(Path file, List<String> actual) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        StringBuilder result = new StringBuilder();
        int caseIndex = -1;
        boolean inExpected = false;
        for (String line : lines) {
            if (line.startsWith("=== ")) {
                if (inExpected) {
                    result.append(actual.get(caseIndex)).append('\n');
                }
                inExpected = false;
                caseIndex++;
            } else if (line.equals("---") && !inExpected && caseIndex >= 0) {
                result.append(line).append('\n');
                inExpected = true;
                continue;
            }
            if (!inExpected) {
                result.append(line).append('\n');
            }
        }
        if (inExpected) {
            result.append(actual.get(caseIndex));
        }
        return result.toString();
    }

    private static RouteUnit unit(List<String> words) {
        List<TableMapping> tables = new ArrayList<>();
        int[] rows = new int[0];
        for (String word : words.subList(2, words.size())) {
            if (word.startsWith("rows=")) {
                String[] parts = word.substring(5).split(",");
                rows = new int[parts.length];
                for (int k = 0; k < parts.length; k++) {
                    rows[k] = Integer.parseInt(parts[k]);
                }
            } else {
                int equals = word.indexOf('=');
                tables.add(new TableMapping(word.substring(0, equals), word.substring(equals + 1)));
            }
        }
        return new RouteUnit(words.get(1), tables, rows);
    }

    private static List<Object> values(List<String> words) {
        List<Object> result = new ArrayList<>();
        for (String word : words) {
            if (word.equals("null")) {
                result.add(null);
            } else if (word.startsWith("'")) {
                result.add(word.substring(1, word.length() - 1).replace("''", "'"));
            } else if (word.contains(".")) {
                result.add(new BigDecimal(word));
            } else {
                result.add(Long.parseLong(word));
            }
        }
        return result;
    }

    /** Splits on spaces, keeping {@code 'quoted strings'} whole. */
    private static List<String> words(String line) {
        List<String> result = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            if (line.charAt(i) == ' ') {
                i++;
                continue;
            }
            int start = i;
            if (line.charAt(i) == '\'') {
                i++;
                while (i < line.length() && (line.charAt(i) != '\'' || i + 1 < line.length() && line.charAt(i + 1) == '\'')) {
                    i += line.charAt(i) == '\'' ? 2 : 1;
                }
                i++;
            } else {
                while (i < line.length() && line.charAt(i) != ' ') {
                    i++;
                }
            }
            result.add(line.substring(start, i));
        }
        return result;
    }
}
