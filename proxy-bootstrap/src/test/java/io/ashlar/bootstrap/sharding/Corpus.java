package io.ashlar.bootstrap.sharding;

import io.ashlar.bootstrap.sharding.CorpusEntry.Kind;
import io.ashlar.bootstrap.sharding.CorpusEntry.Order;
import io.ashlar.bootstrap.sharding.CorpusEntry.Parameter;
import io.ashlar.bootstrap.sharding.CorpusEntry.Refusal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a corpus file of {@code src/test/resources/sharding/}. The format is SQL as psql reads it, plus:
 * <ul>
 *   <li>a statement ends with {@code ;} at the end of a line, and may span lines;</li>
 *   <li>{@code -- ## title} starts a section (shown in test names);</li>
 *   <li>{@code -- @ordered}, {@code -- @ordered 2,3}, {@code -- @rowcount}, {@code -- @params int:3, text:x},
 *       {@code -- @may-refuse}, {@code -- @refused word...} on the lines above a statement say how it is compared
 *       (see {@link CorpusEntry});</li>
 *   <li>{@code \reset} and {@code \contents table...} lines are harness directives;</li>
 *   <li>any other {@code --} line is a comment.</li>
 * </ul>
 */
final class Corpus {

    private Corpus() {
    }

    static List<CorpusEntry> load(String name) throws IOException {
        String text;
        try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream("sharding/" + name)) {
            if (in == null) {
                throw new IOException("no corpus sharding/" + name);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return parse(name, text);
    }

    static List<CorpusEntry> parse(String file, String text) {
        List<CorpusEntry> result = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        String section = "";
        Order order = Order.UNORDERED;
        List<Integer> orderColumns = List.of();
        Refusal refusal = Refusal.NONE;
        List<String> refusalWords = List.of();
        List<Parameter> parameters = List.of();
        StringBuilder statement = new StringBuilder();
        int statementLine = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String trimmed = line.strip();
            int lineNumber = i + 1;
            if (statement.isEmpty()) {
                if (trimmed.isEmpty()) {
                    continue;
                }
                if (trimmed.startsWith("-- ##")) {
                    section = trimmed.substring(5).strip();
                    continue;
                }
                if (trimmed.startsWith("-- @")) {
                    String directive = trimmed.substring(4);
                    String name = directive.split("\\s+", 2)[0];
                    String argument = directive.substring(name.length()).strip();
                    switch (name) {
                        case "ordered" -> {
                            order = argument.isEmpty() ? Order.ORDERED : Order.ORDERED_BY;
                            orderColumns = argument.isEmpty() ? List.of() : columns(argument);
                        }
                        case "rowcount" -> order = Order.ROW_COUNT;
                        case "params" -> parameters = parameters(argument);
                        case "may-refuse" -> refusal = Refusal.ALLOWED;
                        case "refused" -> {
                            refusal = Refusal.REQUIRED;
                            refusalWords = List.of(argument.split("\\s+"));
                        }
                        default -> throw new IllegalArgumentException(file + ":" + lineNumber + ": unknown directive @" + name);
                    }
                    continue;
                }
                if (trimmed.startsWith("--")) {
                    continue;
                }
                if (trimmed.startsWith("\\")) {
                    String[] parts = trimmed.substring(1).split("\\s+", 2);
                    Kind kind = switch (parts[0]) {
                        case "reset" -> Kind.RESET;
                        case "contents" -> Kind.CONTENTS;
                        default -> throw new IllegalArgumentException(file + ":" + lineNumber + ": unknown directive \\" + parts[0]);
                    };
                    result.add(new CorpusEntry(file, lineNumber, section, kind, parts.length > 1 ? parts[1].strip() : "",
                            Order.UNORDERED, List.of(), Refusal.NONE, List.of(), List.of()));
                    continue;
                }
                statementLine = lineNumber;
            }
            statement.append(statement.isEmpty() ? "" : "\n").append(line);
            if (trimmed.endsWith(";")) {
                String sql = statement.toString().strip();
                sql = sql.substring(0, sql.length() - 1).strip();
                result.add(new CorpusEntry(file, statementLine, section, Kind.STATEMENT, sql, order, orderColumns, refusal,
                        refusalWords, parameters));
                statement.setLength(0);
                order = Order.UNORDERED;
                orderColumns = List.of();
                refusal = Refusal.NONE;
                refusalWords = List.of();
                parameters = List.of();
            }
        }
        if (!statement.isEmpty()) {
            throw new IllegalArgumentException(file + ":" + statementLine + ": statement without a final ';'");
        }
        return result;
    }

    private static List<Integer> columns(String argument) {
        List<Integer> result = new ArrayList<>();
        for (String each : argument.split(",")) {
            result.add(Integer.parseInt(each.strip()));
        }
        return List.copyOf(result);
    }

    private static List<Parameter> parameters(String argument) {
        List<Parameter> result = new ArrayList<>();
        for (String each : argument.split(",\\s*")) {
            result.add(Parameter.parse(each));
        }
        return List.copyOf(result);
    }
}
