package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.rewrite.template.Identifiers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names of one data source's actual tables as the logical database calls them: {@code public.t_order_1} is
 * {@code public.t_order}, and so are the objects named after it. An actual table's constraints, indexes and
 * sequences carry its name the way PostgreSQL and ShardingSphere name them: {@code t_order_1_pkey} and
 * {@code t_order_1_id_seq} (PostgreSQL's default names start with the table's name), {@code idx_status_t_order_1}
 * (ShardingSphere, and Ashlar, append the actual table's name to an index or constraint named in DDL). The logical
 * names are those PostgreSQL would have given on one database: {@code t_order_pkey}, {@code t_order_id_seq},
 * {@code idx_status}.
 */
final class LogicalNames {

    /** Actual {@code schema.table} to logical {@code schema.table}, for the tables whose names differ. */
    private final Map<String, String> tables;

    LogicalNames(Map<String, String> tables) {
        this.tables = Map.copyOf(tables);
    }

    /** The definition of an actual table as its logical table's: every name it holds in logical terms. */
    TableMetadata logical(TableMetadata actual, String logicalName) {
        String physical = actual.name();
        if (physical.equals(logicalName) && tables.isEmpty()) {
            return actual;
        }
        Map<String, String> relations = new HashMap<>(tables);
        relations.put(actual.qualifiedName(), actual.schema() + "." + logicalName);
        List<SequenceMetadata> sequences = new ArrayList<>(actual.sequences().size());
        for (SequenceMetadata each : actual.sequences()) {
            String name = derived(each.name(), physical, logicalName);
            relations.put(actual.schema() + "." + each.name(), actual.schema() + "." + name);
            sequences.add(new SequenceMetadata(name, each.column(), each.options()));
        }
        List<ColumnMetadata> columns = new ArrayList<>(actual.columns().size());
        for (ColumnMetadata each : actual.columns()) {
            columns.add(new ColumnMetadata(each.name(), each.type(), each.notNull(), text(each.defaultExpression(), relations),
                    each.identity(), text(each.generated(), relations), each.collation(), each.comment()));
        }
        List<ConstraintMetadata> constraints = new ArrayList<>(actual.constraints().size());
        for (ConstraintMetadata each : actual.constraints()) {
            constraints.add(new ConstraintMetadata(derived(each.name(), physical, logicalName), each.kind(),
                    text(each.definition(), relations), each.enforcedByProxy()));
        }
        List<IndexMetadata> indexes = new ArrayList<>(actual.indexes().size());
        for (IndexMetadata each : actual.indexes()) {
            String name = derived(each.name(), physical, logicalName);
            indexes.add(new IndexMetadata(name, text(renameIndex(each.definition(), name), relations), each.comment()));
        }
        return new TableMetadata(actual.schema(), logicalName, actual.unlogged(), columns, constraints, indexes, sequences,
                actual.comment());
    }

    /**
     * The logical name of an object named after actual table {@code physical}: {@code idx_t_order_1} with
     * ShardingSphere's suffix dropped, {@code t_order_1_pkey} with the table's name replaced.
     */
    static String derived(String name, String physical, String logical) {
        if (physical.equals(logical)) {
            return name;
        }
        if (name.equals(physical)) {
            return logical;
        }
        if (name.length() > physical.length() + 1 && name.endsWith(physical)
                && name.charAt(name.length() - physical.length() - 1) == '_') {
            return name.substring(0, name.length() - physical.length() - 1);
        }
        if (name.length() > physical.length() + 1 && name.startsWith(physical) && name.charAt(physical.length()) == '_') {
            return logical + name.substring(physical.length());
        }
        return name;
    }

    /** {@code CREATE [UNIQUE] INDEX name ON ...} with another name. */
    private static String renameIndex(String definition, String name) {
        TokenList tokens = tokens(definition);
        if (tokens == null) {
            return definition;
        }
        for (int i = 0; i < tokens.size() - 1; i++) {
            if (tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, "index")) {
                int at = i + 1;
                if (tokens.is(at, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(at, "concurrently")) {
                    at++;
                }
                return definition.substring(0, tokens.start(at)) + Identifiers.write(name, false)
                        + definition.substring(tokens.end(at));
            }
        }
        return definition;
    }

    /**
     * An expression or definition with the relations it names renamed: schema-qualified names
     * ({@code public.t_order_1}, as the catalog functions print them under {@code search_path = pg_catalog}) and
     * string literals that name one ({@code 'public.t_order_1_id_seq'::regclass}).
     */
    static String text(String text, Map<String, String> relations) {
        if (text.isEmpty() || relations.isEmpty()) {
            return text;
        }
        TokenList tokens = tokens(text);
        if (tokens == null) {
            return text;
        }
        StringBuilder result = null;
        int copied = 0;
        for (int i = 0; i < tokens.size(); i++) {
            String replacement = null;
            int last = i;
            if (tokens.kind(i).isIdentifier() && tokens.is(i + 1, TokenKind.DOT) && i + 2 < tokens.size()
                    && tokens.kind(i + 2).isIdentifier() && !tokens.is(i - 1, TokenKind.DOT)) {
                String mapped = relations.get(tokens.identifier(i) + "." + tokens.identifier(i + 2));
                if (mapped != null) {
                    int dot = mapped.indexOf('.');
                    replacement = Identifiers.write(mapped.substring(0, dot), false) + "."
                            + Identifiers.write(mapped.substring(dot + 1), false);
                    last = i + 2;
                }
            } else if (tokens.is(i, TokenKind.STRING)) {
                String mapped = relations.get(tokens.stringValue(i));
                if (mapped != null) {
                    replacement = SqlText.literal(mapped);
                }
            }
            if (replacement != null) {
                if (result == null) {
                    result = new StringBuilder(text.length() + 8);
                }
                result.append(text, copied, tokens.start(i)).append(replacement);
                copied = tokens.end(last);
                i = last;
            }
        }
        return result == null ? text : result.append(text, copied, text.length()).toString();
    }

    private static TokenList tokens(String text) {
        try {
            return Lexer.tokenize(text);
        } catch (SqlSyntaxException e) {
            return null;
        }
    }
}
