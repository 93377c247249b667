package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.AnalysisGap;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.ForeignKey;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.TableRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Parses DDL for what sharding needs: the tables created, altered, dropped or truncated, the
 * tables they reference, and index and constraint names, each with its position; see
 * <a href="https://www.postgresql.org/docs/current/sql-createtable.html">CREATE TABLE</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-altertable.html">ALTER TABLE</a>,
 * <a href="https://www.postgresql.org/docs/current/sql-createindex.html">CREATE INDEX</a> and
 * <a href="https://www.postgresql.org/docs/current/sql-truncate.html">TRUNCATE</a>. Other object
 * types are recognised by kind only.
 */
final class DdlParser {
    private final ParseContext c;

    /** The foreign keys of the CREATE TABLE or ALTER TABLE being parsed. */
    private final List<ForeignKey> foreignKeys = new ArrayList<>(1);

    DdlParser(ParseContext context) {
        this.c = context;
    }

    DdlStatement create(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.OR) && c.kw(j + 1, Keyword.REPLACE)) {
            j += 2;
        }
        boolean unique = false;
        while (true) {
            Keyword keyword = c.keyword(j);
            if (keyword == Keyword.GLOBAL || keyword == Keyword.LOCAL || keyword == Keyword.TEMP
                    || keyword == Keyword.TEMPORARY || keyword == Keyword.UNLOGGED || keyword == Keyword.RECURSIVE) {
                j++;
            } else if (keyword == Keyword.UNIQUE) {
                unique = true;
                j++;
            } else {
                break;
            }
        }
        if (c.kw(j, Keyword.TABLE)) {
            return createTable(j + 1, to);
        }
        if (c.kw(j, Keyword.INDEX)) {
            return createIndex(j + 1, to);
        }
        if (c.kw(j, Keyword.VIEW) || (c.kw(j, Keyword.MATERIALIZED) && c.kw(j + 1, Keyword.VIEW))) {
            return createView(j, to);
        }
        if (unique) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        return new DdlStatement(DdlKind.CREATE_OTHER, objectType(j), false, ifNotExists(j + 1), Optional.empty());
    }

    private DdlStatement createTable(int from, int to) {
        int j = from;
        boolean ifNotExists = false;
        if (c.kw(j, Keyword.IF) && c.kw(j + 1, Keyword.NOT) && c.kw(j + 2, Keyword.EXISTS)) {
            ifNotExists = true;
            j += 3;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new DdlStatement(DdlKind.CREATE_TABLE, "table", false, ifNotExists, Optional.empty());
        }
        int table = c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
        j = name.next();
        if (c.kw(j, Keyword.OF)) {
            j = skipName(j + 1, to);
        } else if (c.kw(j, Keyword.PARTITION) && c.kw(j + 1, Keyword.OF)) {
            j = reference(j + 2, to);
        }
        if (c.is(j, TokenKind.LEFT_PAREN)) {
            int close = c.close(j);
            if (close < 0) {
                c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                return new DdlStatement(DdlKind.CREATE_TABLE, "table", false, ifNotExists, Optional.empty());
            }
            for (int[] element : c.splitCommas(j + 1, close)) {
                tableElement(element[0], element[1], table);
            }
            j = close + 1;
        }
        Optional<SourceRange> query = Optional.empty();
        DdlKind kind = DdlKind.CREATE_TABLE;
        int as = c.find(j, to, Keyword.AS);
        if (as >= 0 && c.startsQuery(as + 1)) {
            int end = withDataEnd(as + 1, to);
            c.queries.parse(as + 1, end, 0, -1, false);
            query = Optional.of(c.range(as + 1, end));
            j = end;
        }
        int inherits = c.kw(j, Keyword.INHERITS) ? j : -1;
        if (inherits >= 0 && c.is(inherits + 1, TokenKind.LEFT_PAREN)) {
            int close = Math.max(inherits + 2, c.close(inherits + 1));
            for (int[] item : c.splitCommas(inherits + 2, close)) {
                reference(item[0], item[1]);
            }
        }
        return new DdlStatement(kind, "table", false, ifNotExists, query, foreignKeys);
    }

    /** The end of the query of CREATE TABLE ... AS: before a trailing {@code WITH [NO] DATA}. */
    private int withDataEnd(int from, int to) {
        int result = to;
        for (int i = from; i < to; i = c.skip(i, to)) {
            boolean data = c.word(i + 1, "data") || (c.kw(i + 1, Keyword.NO) && c.word(i + 2, "data"));
            if (c.kw(i, Keyword.WITH) && data) {
                result = i;
            }
        }
        return result;
    }

    /** A column definition or table constraint: LIKE, REFERENCES and CONSTRAINT names. */
    private void tableElement(int from, int to, int table) {
        if (c.kw(from, Keyword.LIKE)) {
            reference(from + 1, to);
            return;
        }
        constraintNames(from, to, table, from);
    }

    /** Constraint names and REFERENCES in {@code [from, to)}; a column constraint's column name is at {@code column}. */
    private void constraintNames(int from, int to, int table, int column) {
        for (int i = from; i < to; i++) {
            if (c.kw(i, Keyword.CONSTRAINT)) {
                ParseContext.QualifiedName name = c.qualifiedName(i + 1, to);
                if (name != null) {
                    c.addIndex(name, true, OptionalInt.of(table));
                    i = name.lastToken();
                }
            } else if (c.kw(i, Keyword.REFERENCES)) {
                i = foreignKey(from, i, to, table, column) - 1;
            }
        }
    }

    /**
     * The foreign key whose REFERENCES is at {@code references}, in the table element or ALTER TABLE action that starts
     * at {@code from}: its columns are those of {@code FOREIGN KEY (...)} before it, or else the column defined at
     * {@code column}. Returns the index after the referenced table's name and column list.
     */
    private int foreignKey(int from, int references, int to, int table, int column) {
        ParseContext.QualifiedName name = c.qualifiedName(references + 1, to);
        if (name == null) {
            return references + 1;
        }
        int referenced = c.addTable(name, Optional.empty(), TableRole.DDL_REFERENCE, 0);
        List<String> columns = null;
        for (int i = from; i < references; i++) {
            if (c.kw(i, Keyword.FOREIGN) && c.kw(i + 1, Keyword.KEY) && c.is(i + 2, TokenKind.LEFT_PAREN)) {
                columns = names(i + 2);
                break;
            }
        }
        if (columns == null) {
            columns = column >= 0 && c.isWord(column) ? List.of(c.name(column)) : List.of();
        }
        int result = name.next();
        List<String> referencedColumns = List.of();
        if (c.is(result, TokenKind.LEFT_PAREN)) {
            referencedColumns = names(result);
            result = Math.max(result + 1, c.close(result) + 1);
        }
        String constraintName = "";
        for (int i = from; i < references; i++) {
            if (c.kw(i, Keyword.CONSTRAINT) && c.isWord(i + 1)) {
                constraintName = c.name(i + 1);
            }
        }
        List<String> options = new ArrayList<>(0);
        boolean notValid = false;
        for (int i = result; i < to; i = c.skip(i, to)) {
            if (c.kw(i, Keyword.REFERENCES) || c.kw(i, Keyword.CONSTRAINT) || c.kw(i, Keyword.CHECK) || c.kw(i, Keyword.PRIMARY)
                    || c.kw(i, Keyword.UNIQUE) || c.kw(i, Keyword.DEFAULT) && !c.kw(i - 1, Keyword.SET)) {
                break; // the next constraint of a column definition
            }
            if (c.kw(i, Keyword.ON) && (c.kw(i + 1, Keyword.DELETE) || c.kw(i + 1, Keyword.UPDATE))) {
                String action = c.kw(i + 2, Keyword.CASCADE) ? "CASCADE"
                        : c.kw(i + 2, Keyword.SET) && c.kw(i + 3, Keyword.NULL) ? "SET NULL"
                        : c.kw(i + 2, Keyword.SET) && c.kw(i + 3, Keyword.DEFAULT) ? "SET DEFAULT" : "";
                if (!action.isEmpty()) {
                    options.add("ON " + (c.kw(i + 1, Keyword.DELETE) ? "DELETE " : "UPDATE ") + action);
                }
            } else if (c.kw(i, Keyword.DEFERRABLE) && !c.kw(i - 1, Keyword.NOT)) {
                options.add("DEFERRABLE");
            } else if (c.word(i, "match") && (c.kw(i + 1, Keyword.FULL) || c.word(i + 1, "partial"))) {
                options.add(c.kw(i + 1, Keyword.FULL) ? "MATCH FULL" : "MATCH PARTIAL");
            } else if (c.kw(i, Keyword.NOT) && c.word(i + 1, "valid")) {
                notValid = true;
            }
        }
        foreignKeys.add(new ForeignKey(table, columns, referenced, referencedColumns, constraintName, options, notValid));
        return result;
    }

    /** The names in the parenthesised list that opens at {@code open}. */
    private List<String> names(int open) {
        int close = c.close(open);
        if (close < 0) {
            return List.of();
        }
        List<String> result = new ArrayList<>(2);
        for (int[] item : c.splitCommas(open + 1, close)) {
            if (item[1] == item[0] + 1 && c.isWord(item[0])) {
                result.add(c.name(item[0]));
            }
        }
        return result;
    }

    /** A table named by DDL other than its target; returns the index after the name. */
    private int reference(int i, int to) {
        ParseContext.QualifiedName name = c.qualifiedName(i, to);
        if (name == null) {
            return i;
        }
        c.addTable(name, Optional.empty(), TableRole.DDL_REFERENCE, 0);
        return name.next();
    }

    private int skipName(int i, int to) {
        ParseContext.QualifiedName name = c.qualifiedName(i, to);
        return name == null ? i : name.next();
    }

    private DdlStatement createIndex(int from, int to) {
        int j = from;
        if (c.kw(j, Keyword.CONCURRENTLY)) {
            j++;
        }
        boolean ifNotExists = false;
        if (c.kw(j, Keyword.IF) && c.kw(j + 1, Keyword.NOT) && c.kw(j + 2, Keyword.EXISTS)) {
            ifNotExists = true;
            j += 3;
        }
        ParseContext.QualifiedName index = null;
        if (!c.kw(j, Keyword.ON)) {
            index = c.qualifiedName(j, to);
            j = index == null ? j : index.next();
        }
        if (!c.kw(j, Keyword.ON)) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new DdlStatement(DdlKind.CREATE_INDEX, "index", false, ifNotExists, Optional.empty());
        }
        j++;
        if (c.kw(j, Keyword.ONLY)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        OptionalInt table = OptionalInt.empty();
        if (name != null) {
            table = OptionalInt.of(c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0));
        } else {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
        }
        if (index != null) {
            c.addIndex(index, false, table);
        }
        return new DdlStatement(DdlKind.CREATE_INDEX, "index", false, ifNotExists, Optional.empty());
    }

    private DdlStatement createView(int j, int to) {
        String type = c.kw(j, Keyword.MATERIALIZED) ? "materialized view" : "view";
        int k = c.kw(j, Keyword.MATERIALIZED) ? j + 2 : j + 1;
        boolean ifNotExists = ifNotExists(k);
        if (ifNotExists) {
            k += 3;
        }
        ParseContext.QualifiedName name = c.qualifiedName(k, to);
        if (name != null) {
            c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
        }
        Optional<SourceRange> query = Optional.empty();
        int as = c.find(k, to, Keyword.AS);
        if (as >= 0 && c.startsQuery(as + 1)) {
            int end = withDataEnd(as + 1, to);
            int check = c.find(as + 1, end, Keyword.WITH);
            if (check > as + 1 && (c.kw(check + 1, Keyword.CHECK) || c.kw(check + 1, Keyword.CASCADED)
                    || c.kw(check + 1, Keyword.LOCAL))) {
                end = check;
            }
            c.queries.parse(as + 1, end, 0, -1, false);
            query = Optional.of(c.range(as + 1, end));
        }
        return new DdlStatement(DdlKind.CREATE_OTHER, type, false, ifNotExists, query);
    }

    private boolean ifNotExists(int i) {
        return c.kw(i, Keyword.IF) && c.kw(i + 1, Keyword.NOT) && c.kw(i + 2, Keyword.EXISTS);
    }

    private boolean ifExists(int i) {
        return c.kw(i, Keyword.IF) && c.kw(i + 1, Keyword.EXISTS);
    }

    /** The object type words at {@code i}: one word, or two for compound types ({@code materialized view}). */
    private String objectType(int i) {
        if (!c.isWord(i)) {
            return "";
        }
        String first = c.tokens.text(i).toLowerCase(Locale.ROOT);
        boolean compound = switch (first) {
            case "materialized", "foreign", "event", "text", "access", "operator", "user", "default" -> true;
            default -> false;
        };
        if (compound && c.isWord(i + 1)) {
            return first + " " + c.tokens.text(i + 1).toLowerCase(Locale.ROOT);
        }
        return first;
    }

    DdlStatement alter(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.TABLE)) {
            return alterTable(j + 1, to);
        }
        if (c.kw(j, Keyword.INDEX)) {
            int k = j + 1;
            boolean ifExists = ifExists(k);
            if (ifExists) {
                k += 2;
            }
            ParseContext.QualifiedName index = c.kw(k, Keyword.ALL) ? null : c.qualifiedName(k, to);
            if (index != null) {
                c.addIndex(index, false, OptionalInt.empty());
                int rename = index.next();
                if (c.kw(rename, Keyword.RENAME) && c.kw(rename + 1, Keyword.TO)) {
                    ParseContext.QualifiedName target = c.qualifiedName(rename + 2, to);
                    if (target != null) {
                        c.addIndex(target, false, OptionalInt.empty());
                    }
                }
            }
            return new DdlStatement(DdlKind.ALTER_INDEX, "index", ifExists, false, Optional.empty());
        }
        int k = j + (objectType(j).indexOf(' ') > 0 ? 2 : 1);
        return new DdlStatement(DdlKind.ALTER_OTHER, objectType(j), ifExists(k), false, Optional.empty());
    }

    private DdlStatement alterTable(int from, int to) {
        int j = from;
        boolean ifExists = ifExists(j);
        if (ifExists) {
            j += 2;
        }
        if (c.kw(j, Keyword.ALL)) {
            return new DdlStatement(DdlKind.ALTER_TABLE, "table", ifExists, false, Optional.empty());
        }
        if (c.kw(j, Keyword.ONLY)) {
            j++;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j, to);
        if (name == null) {
            c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
            return new DdlStatement(DdlKind.ALTER_TABLE, "table", ifExists, false, Optional.empty());
        }
        int table = c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
        j = name.next();
        if (c.op(j, "*")) {
            j++;
        }
        for (int[] action : c.splitCommas(j, to)) {
            alterAction(action[0], action[1], table);
        }
        return new DdlStatement(DdlKind.ALTER_TABLE, "table", ifExists, false, Optional.empty(), foreignKeys);
    }

    /** One action of ALTER TABLE: the tables and constraint names it names. */
    private void alterAction(int from, int to, int table) {
        int column = -1;
        if (c.kw(from, Keyword.ADD)) {
            column = from + 1;
            if (c.kw(column, Keyword.COLUMN)) {
                column++;
            }
            if (ifNotExists(column)) {
                column += 3;
            }
        }
        for (int k = from; k < to; k++) {
            Keyword keyword = c.keyword(k);
            switch (keyword) {
                case RENAME -> {
                    if (c.kw(k + 1, Keyword.TO)) {
                        k = reference(k + 2, to) - 1;
                    } else if (c.kw(k + 1, Keyword.CONSTRAINT)) {
                        ParseContext.QualifiedName old = c.qualifiedName(k + 2, to);
                        if (old != null) {
                            c.addIndex(old, true, OptionalInt.of(table));
                            if (c.kw(old.next(), Keyword.TO)) {
                                ParseContext.QualifiedName renamed = c.qualifiedName(old.next() + 1, to);
                                if (renamed != null) {
                                    c.addIndex(renamed, true, OptionalInt.of(table));
                                    k = renamed.lastToken();
                                }
                            }
                        }
                    }
                }
                case CONSTRAINT -> {
                    int n = ifExists(k + 1) ? k + 3 : k + 1;
                    ParseContext.QualifiedName constraint = c.qualifiedName(n, to);
                    if (constraint != null) {
                        c.addIndex(constraint, true, OptionalInt.of(table));
                        k = constraint.lastToken();
                    }
                }
                case REFERENCES -> k = foreignKey(from, k, to, table, column) - 1;
                case ATTACH, DETACH -> {
                    if (c.kw(k + 1, Keyword.PARTITION)) {
                        k = reference(k + 2, to) - 1;
                    }
                }
                case INHERIT -> k = reference(k + 1, to) - 1;
                default -> {
                    // other actions name columns, types or options
                }
            }
        }
    }

    DdlStatement drop(int i, int to) {
        int j = i + 1;
        boolean table = c.kw(j, Keyword.TABLE);
        boolean index = c.kw(j, Keyword.INDEX);
        boolean view = c.kw(j, Keyword.VIEW) || (c.kw(j, Keyword.MATERIALIZED) && c.kw(j + 1, Keyword.VIEW));
        String type = objectType(j);
        j += type.indexOf(' ') > 0 ? 2 : 1;
        if (index && c.kw(j, Keyword.CONCURRENTLY)) {
            j++;
        }
        boolean ifExists = ifExists(j);
        if (ifExists) {
            j += 2;
        }
        if (table || index || view) {
            for (int[] item : c.splitCommas(j, to)) {
                ParseContext.QualifiedName name = c.qualifiedName(item[0], item[1]);
                if (name == null) {
                    c.gaps.add(AnalysisGap.UNRECOGNIZED_SYNTAX);
                } else if (index) {
                    c.addIndex(name, false, OptionalInt.empty());
                } else {
                    c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
                }
            }
        }
        DdlKind kind = table ? DdlKind.DROP_TABLE : index ? DdlKind.DROP_INDEX : DdlKind.DROP_OTHER;
        return new DdlStatement(kind, type, ifExists, false, Optional.empty());
    }

    /**
     * {@code COMMENT ON TABLE name IS ...} and {@code COMMENT ON COLUMN [schema.]table.column IS ...}: a change of the
     * table (each of its actual tables takes the comment, and the logical schema reads it again). A comment on
     * anything else is null: it runs as any other statement.
     */
    DdlStatement comment(int i, int to) {
        if (!c.kw(i + 1, Keyword.ON)) {
            return null;
        }
        int j = i + 2;
        boolean column = c.kw(j, Keyword.COLUMN);
        if (!column && !c.kw(j, Keyword.TABLE)) {
            return null;
        }
        ParseContext.QualifiedName name = c.qualifiedName(j + 1, to);
        if (name == null || column && name.parts().size() < 2 || !c.kw(name.next(), Keyword.IS)) {
            return null;
        }
        if (column) {
            java.util.List<String> parts = name.parts();
            name = new ParseContext.QualifiedName(name.first(), name.lastToken() - 2, parts.subList(0, parts.size() - 1));
        }
        c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
        return new DdlStatement(DdlKind.ALTER_TABLE, "table", false, false, Optional.empty());
    }

    DdlStatement truncate(int i, int to) {
        int j = i + 1;
        if (c.kw(j, Keyword.TABLE)) {
            j++;
        }
        while (j < to) {
            if (c.kw(j, Keyword.ONLY)) {
                j++;
            }
            ParseContext.QualifiedName name = c.qualifiedName(j, to);
            if (name == null) {
                break;
            }
            c.addTable(name, Optional.empty(), TableRole.DDL_TARGET, 0);
            j = name.next();
            if (c.op(j, "*")) {
                j++;
            }
            if (!c.is(j, TokenKind.COMMA)) {
                break;
            }
            j++;
        }
        return new DdlStatement(DdlKind.TRUNCATE_TABLE, "table", false, false, Optional.empty());
    }
}
