package io.ashlar.parser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A golden file of analyzer cases:
 * <pre>
 * === name [jdbc]
 * SQL, one or more lines
 * ---
 * expected description (StatementPrinter), one or more lines
 * </pre>
 * Run with {@code -Dgolden.update=true} to rewrite the expectations from the actual output (then
 * review the diff: a golden file only helps if every line of it was checked by a human).
 */
record GoldenFile(Path path, List<Case> cases) {
    static final Path ROOT = Path.of("src/test/resources/io/ashlar/parser/golden");

    record Case(String name, boolean jdbc, String sql, String expected) {
    }

    static GoldenFile read(String fileName) throws IOException {
        Path path = ROOT.resolve(fileName);
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        List<Case> cases = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            String header = lines.get(i);
            if (!header.startsWith("=== ")) {
                i++;
                continue;
            }
            String name = header.substring(4).trim();
            boolean jdbc = name.endsWith("[jdbc]");
            if (jdbc) {
                name = name.substring(0, name.length() - "[jdbc]".length()).trim();
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
            cases.add(new Case(name, jdbc, sql.toString(), expected.toString().strip() + "\n"));
        }
        return new GoldenFile(path, cases);
    }

    void write(List<String> actual) throws IOException {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            text.append("=== ").append(c.name()).append(c.jdbc() ? " [jdbc]" : "").append('\n')
                    .append(c.sql()).append("\n---\n").append(actual.get(i));
            if (i + 1 < cases.size()) {
                text.append('\n');
            }
        }
        Files.writeString(path, text, StandardCharsets.UTF_8);
    }
}
