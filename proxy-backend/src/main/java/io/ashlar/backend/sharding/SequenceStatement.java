package io.ashlar.backend.sharding;

import io.ashlar.parser.SqlText;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.StatementKind;

/**
 * What a statement does with sequences, worked out once per SQL text (with its {@link Plan}): on a
 * sharded logical database a sequence has a copy on every data source, and the copies are
 * <em>interleaved</em> so that no two hand out the same value. On data source {@code i} of
 * {@code n}, a sequence of increment {@code k} and start {@code s} is made with increment
 * {@code n*k} and start {@code s+i*k}: every value is a value of the logical sequence, each copy's
 * values are its own residue class, and a column DEFAULT that calls {@code nextval} on the shard's
 * own backend needs no round trip to anywhere else. The sequences that serial and identity columns
 * of a sharded table own are interleaved the same way across the table's actual tables.
 *
 * <p>Most statements mention no sequence at all: {@link #of} finds that with one scan of the text
 * and returns null, and nothing else happens for them.
 *
 * @see <a href="https://www.postgresql.org/docs/current/functions-sequence.html">Sequence Manipulation Functions</a>
 */
public final class SequenceStatement {

    /** What the statement is, as far as sequences go. */
    public enum Kind {
        /** CREATE SEQUENCE: made on every data source, then interleaved. */
        CREATE_SEQUENCE,
        /** ALTER SEQUENCE name RESTART WITH $n: each copy restarts at its first value at or past the parameter's value (as setval). */
        RESTART_SEQUENCE,
        /**
         * ALTER SEQUENCE changing INCREMENT, START or restarting at a value: run as written on every copy, then each copy
         * interleaved again in the same transaction.
         */
        ALTER_SEQUENCE,
        /** ALTER SEQUENCE ... OWNED BY a column, nothing that changes the copies' grid: each copy owned by a table of its data source. */
        OWNED_BY,
        /** ALTER SEQUENCE with RESTART WITH a parameter among other options: refused over several data sources. */
        ALTER_REFUSED,
        /** CREATE TABLE with a serial or identity column: the sequences of its actual tables are interleaved. */
        CREATE_TABLE,
        /**
         * ALTER TABLE adding a serial or identity column (the new sequences are interleaved), or restarting an identity
         * column's sequence at a value (each actual table's at its first value at or past it).
         */
        ALTER_TABLE,
        /** ALTER TABLE ... ALTER COLUMN ... SET INCREMENT BY / SET START WITH: refused over several actual tables. */
        ALTER_TABLE_REFUSED,
        /** {@code SELECT setval(seq, value [, is_called]) [FROM ...]}: the value found first, then set on every copy. */
        SETVAL,
        /** Another statement calling setval: refused over several data sources. */
        SETVAL_REFUSED,
        /** A statement calling nextval (and maybe currval/lastval): its connections stay with the session. */
        NEXTVAL,
        /** A statement calling currval or lastval only: answered where the session's last nextval ran. */
        CURRVAL
    }

    private final Kind kind;
    /** The sequence's name as written (CREATE SEQUENCE, ALTER SEQUENCE), or "". */
    private final String name;
    /** setval's arguments as written; ALTER's RESTART value as the value argument. */
    private final String sequenceArgument;
    private final String valueArgument;
    private final String calledArgument;
    /** The query that gives setval's value: the inner SELECT of a scalar subquery, or {@code SELECT value FROM ...}. */
    private final String valueQuery;
    /** ALTER SEQUENCE: INCREMENT given, START given, RESTART without a value (set by the factory, before publication). */
    private boolean incrementGiven;
    private boolean startGiven;
    private boolean plainRestart;
    /** Where setval's sequence argument starts in the statement's text, or -1. */
    private int sequenceStart = -1;
    /** CREATE ... IF NOT EXISTS; for ALTER TABLE, whether it may add serial or identity columns ({@link #ownsNew()}). */
    private final boolean ifNotExists;
    /** setval's value is a scalar subquery (whose SELECT is the value query). */
    private final boolean fromSubquery;
    /** {@code SELECT setval(s, v, c) FROM ...}: the value query gives is_called too, as its second column. */
    private boolean calledFromQuery;
    /**
     * nextval and currval calls whose sequence is a string literal: where each literal starts and ends in the text, and
     * the sequence it names as written (what regclass reads). Empty for other kinds.
     */
    private int[] literalStarts = new int[0];
    private int[] literalEnds = new int[0];
    private String[] literalNames = new String[0];
    /** CREATE or ALTER SEQUENCE ... OWNED BY [schema.]table.column: the table's name, where it and the clause are; or "". */
    private String ownedByTable = "";
    private int ownedByTableStart;
    private int ownedByTableEnd;
    private int ownedByStart;
    private int ownedByEnd;
    private String[] literalExpressions = new String[0];

    private SequenceStatement(Kind kind, String name, String sequenceArgument, String valueArgument, String calledArgument,
                              String valueQuery, boolean ifNotExists, boolean fromSubquery) {
        this.kind = kind;
        this.name = name;
        this.sequenceArgument = sequenceArgument;
        this.valueArgument = valueArgument;
        this.calledArgument = calledArgument;
        this.valueQuery = valueQuery;
        this.ifNotExists = ifNotExists;
        this.fromSubquery = fromSubquery;
    }

    private static SequenceStatement of(Kind kind) {
        return new SequenceStatement(kind, "", "", "", "", "", false, false);
    }

    public Kind kind() {
        return kind;
    }

    /**
     * Whether the statement needs its session even on one data source: currval (another session's value must not
     * show), and ALTER TABLE, whose sequences are per actual table (several may share a data source).
     */
    public boolean perActualTable() {
        return kind == Kind.CURRVAL || kind == Kind.ALTER_TABLE || kind == Kind.ALTER_TABLE_REFUSED;
    }

    public String name() {
        return name;
    }

    public boolean ifNotExists() {
        return ifNotExists;
    }

    /**
     * The statement's use of sequences, or null when it has none (the common case, found by one scan of the text
     * for the words that could matter).
     */
    public static SequenceStatement of(AnalyzedStatement statement) {
        String sql = statement.sql();
        // A statement other than DDL matters only when it calls a sequence function; their names all end in "val".
        int words = statement.kind() == StatementKind.DDL || mentionsVal(sql) ? mentions(sql) : 0;
        if (words == 0 || (words & SEQUENCE_FUNCTION) == 0 && statement.kind() != StatementKind.DDL) {
            return null;
        }
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return null;
        }
        if (statement.kind() == StatementKind.DDL && statement.body() instanceof DdlStatement ddl) {
            if (ddl.kind() == DdlKind.CREATE_TABLE) {
                return (words & (SERIAL | IDENTITY)) != 0 && mentionsOwnedSequence(tokens) ? of(Kind.CREATE_TABLE) : null;
            }
            if (ddl.kind() == DdlKind.ALTER_TABLE) {
                return alterTable(tokens);
            }
            if (ddl.objectType().equals("sequence")) {
                if (ddl.kind() == DdlKind.CREATE_OTHER) {
                    return createSequence(tokens, ddl.ifNotExists());
                }
                if (ddl.kind() == DdlKind.ALTER_OTHER) {
                    return alterSequence(tokens);
                }
            }
            return null; // a DEFAULT nextval(...) is evaluated by each backend later, not now
        }
        boolean nextval = false;
        boolean setval = false;
        boolean currval = false;
        for (int i = 0, n = tokens.size(); i + 1 < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER || !tokens.is(i + 1, TokenKind.LEFT_PAREN)) {
                continue;
            }
            nextval |= tokens.textEqualsIgnoreCase(i, "nextval");
            setval |= tokens.textEqualsIgnoreCase(i, "setval");
            currval |= tokens.textEqualsIgnoreCase(i, "currval") || tokens.textEqualsIgnoreCase(i, "lastval");
        }
        if (setval) {
            SequenceStatement result = statement.kind() == StatementKind.SELECT ? selectSetval(tokens) : null;
            return result != null ? result : of(Kind.SETVAL_REFUSED);
        }
        if (!nextval && !currval) {
            return null;
        }
        SequenceStatement result = of(nextval ? Kind.NEXTVAL : Kind.CURRVAL);
        result.literals(tokens);
        return result;
    }

    /**
     * Records the sequence arguments of nextval and currval that may name a sharded table's serial sequence: a string
     * literal ({@code nextval('t_order_id_seq')}), or a call of pg_get_serial_sequence without parameters.
     */
    private void literals(TokenList tokens) {
        java.util.List<int[]> found = new java.util.ArrayList<>(1);
        for (int i = 0, n = tokens.size(); i + 3 < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER || !(tokens.textEqualsIgnoreCase(i, "nextval") || tokens.textEqualsIgnoreCase(i, "currval"))
                    || !tokens.is(i + 1, TokenKind.LEFT_PAREN)) {
                continue;
            }
            int close = matching(tokens, i + 1);
            if (close == i + 3 && tokens.kind(i + 2) == TokenKind.STRING) {
                found.add(new int[] {i + 2, i + 2, 1});
            } else if (close > i + 3 && tokens.textEqualsIgnoreCase(i + 2, "pg_get_serial_sequence")) {
                boolean parameter = false;
                for (int k = i + 2; k < close; k++) {
                    parameter |= tokens.kind(k).isParameter();
                }
                if (!parameter) {
                    found.add(new int[] {i + 2, close - 1, 0});
                }
            }
        }
        literalStarts = new int[found.size()];
        literalEnds = new int[found.size()];
        literalNames = new String[found.size()];
        literalExpressions = new String[found.size()];
        for (int k = 0; k < found.size(); k++) {
            int[] each = found.get(k);
            literalStarts[k] = tokens.start(each[0]);
            literalEnds[k] = tokens.end(each[1]);
            String text = tokens.sql().substring(literalStarts[k], literalEnds[k]);
            literalNames[k] = each[2] == 1 ? text.substring(1, text.length() - 1).replace("''", "'") : "";
            literalExpressions[k] = text;
        }
    }

    /** The sequence arguments of nextval and currval recorded ({@link #literals}) as SQL expressions. */
    public String[] literalExpressions() {
        return literalExpressions.clone();
    }

    /** The sequences that nextval and currval are called with as string literals, as written; "" for an expression. */
    public String[] literalNames() {
        return literalNames.clone();
    }

    /**
     * The statement's text with its nextval and currval literals replaced: {@code replacements[k]} (an SQL expression
     * giving the sequence's name) for literal {@code k}, or the literal as it was where null.
     */
    public String withLiterals(String sql, String[] replacements) {
        StringBuilder result = new StringBuilder(sql.length() + 64);
        int position = 0;
        for (int k = 0; k < literalStarts.length; k++) {
            if (replacements[k] != null) {
                result.append(sql, position, literalStarts[k]).append(replacements[k]);
                position = literalEnds[k];
            }
        }
        return result.append(sql, position, sql.length()).toString();
    }

    /**
     * A name that could be a sequence a serial or identity column of {@code table} owns, as PostgreSQL names them
     * ({@code t_order_id_seq}, maybe schema-qualified or quoted): worth asking the catalog about.
     */
    public static boolean mayBeOwnedBy(String name, String table) {
        String last = name.substring(name.lastIndexOf('.') + 1);
        if (last.length() > 1 && last.startsWith("\"") && last.endsWith("\"")) {
            last = last.substring(1, last.length() - 1);
        } else {
            last = last.toLowerCase(java.util.Locale.ROOT);
        }
        return last.startsWith(table + "_") && last.endsWith("_seq");
    }

    /**
     * The logical table and column (two columns, by name) whose serial or identity column owns the sequence an SQL
     * expression names, or no row: asked of the catalog database, where each logical table's shell owns the sequences
     * its columns do on one PostgreSQL ({@code pg_get_serial_sequence('t_order', 'id')} answers one of those).
     */
    public static String logicalOwnerQuery(String sequenceExpression) {
        return "SELECT c.relname, a.attname FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.refobjid"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
                + " WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
                + " AND d.deptype IN ('a', 'i') AND d.objid = pg_catalog.to_regclass((" + sequenceExpression + ")::text) LIMIT 1";
    }

    /** The sequence that column {@code column} of actual table {@code table} owns, as an SQL expression. */
    public static String ownedSequence(String table, String column) {
        return "pg_catalog.pg_get_serial_sequence(" + SqlText.literal(SqlText.identifier(table)) + ", " + SqlText.literal(column) + ")";
    }

    /** setval's sequence argument as written (an SQL expression); null when it has a parameter. */
    public String sequenceExpression() {
        return sequenceArgument.indexOf('$') >= 0 || sequenceArgument.indexOf('?') >= 0 ? null : sequenceArgument;
    }

    /** Whether the value query gives setval's is_called as its second column ({@code ... FROM t}). */
    public boolean calledFromQuery() {
        return calledFromQuery;
    }

    /**
     * For one actual table's sequence: the statement that sets it past {@code value} as {@link #setvalOnCopy(String)}
     * does (its own start and increment, so each copy keeps its own values), with is_called {@code called}.
     */
    public static String setvalOnActualTable(String table, String column, String value, String called) {
        return setvalOnCopy(ownedSequence(table, column), value, called);
    }

    /** {@link #setvalOnCopy(String)} with is_called found by the value query. */
    public String setvalOnCopy(String value, String called) {
        return setvalOnCopy(sequenceArgument, value, called);
    }

    /** setval's is_called argument as written. */
    public String calledArgument() {
        return calledArgument;
    }

    private static final int SEQUENCE_FUNCTION = 1;
    private static final int SEQUENCE = 2;
    private static final int SERIAL = 4;
    private static final int IDENTITY = 8;

    /** Which of the words that matter the text contains anywhere (strings and comments included: a superset). */
    private static int mentions(String sql) {
        int result = 0;
        for (int i = 0, n = sql.length() - 5; i <= n; i++) {
            switch (sql.charAt(i) | 0x20) {
                case 'n' -> result |= sql.regionMatches(true, i, "nextval", 0, 7) ? SEQUENCE_FUNCTION : 0;
                case 's' -> result |= sql.regionMatches(true, i, "setval", 0, 6) ? SEQUENCE_FUNCTION
                        : sql.regionMatches(true, i, "sequence", 0, 8) ? SEQUENCE : sql.regionMatches(true, i, "serial", 0, 6) ? SERIAL
                        : sql.regionMatches(true, i, "start", 0, 5) ? IDENTITY : 0;
                case 'c' -> result |= sql.regionMatches(true, i, "currval", 0, 7) ? SEQUENCE_FUNCTION : 0;
                case 'l' -> result |= sql.regionMatches(true, i, "lastval", 0, 7) ? SEQUENCE_FUNCTION : 0;
                case 'i' -> result |= sql.regionMatches(true, i, "identity", 0, 8) || sql.regionMatches(true, i, "increment", 0, 9) ? IDENTITY : 0;
                case 'r' -> result |= sql.regionMatches(true, i, "restart", 0, 7) ? IDENTITY : 0;
                default -> {
                    // not a word of interest
                }
            }
        }
        return result;
    }

    /** Whether "val" (any case) is in the text: one pass, no region compare, for texts that name no sequence function. */
    private static boolean mentionsVal(String sql) {
        for (int i = 0, n = sql.length() - 2; i < n; i++) {
            if ((sql.charAt(i) | 0x20) == 'v' && (sql.charAt(i + 1) | 0x20) == 'a' && (sql.charAt(i + 2) | 0x20) == 'l') {
                return true;
            }
        }
        return false;
    }

    /** A serial type name or GENERATED ... AS IDENTITY among the tokens (not inside strings). */
    private static boolean mentionsOwnedSequence(TokenList tokens) {
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER) {
                continue;
            }
            if (tokens.textEqualsIgnoreCase(i, "identity") || tokens.textEqualsIgnoreCase(i, "serial") || tokens.textEqualsIgnoreCase(i, "bigserial")
                    || tokens.textEqualsIgnoreCase(i, "smallserial") || tokens.textEqualsIgnoreCase(i, "serial2")
                    || tokens.textEqualsIgnoreCase(i, "serial4") || tokens.textEqualsIgnoreCase(i, "serial8")) {
                return true;
            }
        }
        return false;
    }

    /** CREATE [TEMP | TEMPORARY | UNLOGGED] SEQUENCE [IF NOT EXISTS] name ... */
    private static SequenceStatement createSequence(TokenList tokens, boolean ifNotExists) {
        int i = 0;
        while (i < tokens.size() && !tokens.textEqualsIgnoreCase(i, "sequence")) {
            i++;
        }
        i++;
        if (tokens.textEqualsIgnoreCase(i, "if")) {
            i += 3;
        }
        String name = qualifiedName(tokens, i);
        if (name.isEmpty()) {
            return null;
        }
        SequenceStatement result = new SequenceStatement(Kind.CREATE_SEQUENCE, name, "", "", "", "", ifNotExists, false);
        result.ownedBy(tokens);
        return result;
    }

    /** Finds {@code OWNED BY [schema.]table.column}. */
    private void ownedBy(TokenList tokens) {
        int n = end(tokens);
        for (int j = 0; j + 4 < n; j++) {
            if (!tokens.textEqualsIgnoreCase(j, "owned") || !tokens.textEqualsIgnoreCase(j + 1, "by") || !tokens.kind(j + 2).isIdentifier()) {
                continue;
            }
            int last = j + 2;
            while (last + 2 < n && tokens.is(last + 1, TokenKind.DOT) && tokens.kind(last + 2).isIdentifier()) {
                last += 2;
            }
            if (last >= j + 4) {
                int table = last - 2;
                ownedByTable = tokens.identifier(table);
                ownedByTableStart = tokens.start(table);
                ownedByTableEnd = tokens.end(table);
                ownedByStart = tokens.start(j);
                ownedByEnd = tokens.end(last);
            }
            return;
        }
    }

    /** The table whose column OWNED BY names, normalised, or "" when there is none. */
    public String ownedByTable() {
        return ownedByTable;
    }

    /**
     * The statement's text for one data source: the OWNED BY table replaced by {@code actualTable} there, or the
     * clause by {@code OWNED BY NONE} where the data source holds no actual table of it ({@code actualTable} null).
     */
    public String withOwner(String sql, String actualTable) {
        if (actualTable == null) {
            return sql.substring(0, ownedByStart) + "OWNED BY NONE" + sql.substring(ownedByEnd);
        }
        return sql.substring(0, ownedByTableStart) + SqlText.identifier(actualTable) + sql.substring(ownedByTableEnd);
    }

    /** ALTER SEQUENCE [IF EXISTS] name options: RESTART WITH v alone is done as setval(name, v, false) on every copy. */
    private static SequenceStatement alterSequence(TokenList tokens) {
        int i = 2;
        if (tokens.textEqualsIgnoreCase(i, "if")) {
            i += 2;
        }
        String name = qualifiedName(tokens, i);
        if (name.isEmpty()) {
            return null;
        }
        int nameEnd = i;
        while (nameEnd + 2 < tokens.size() && tokens.is(nameEnd + 1, TokenKind.DOT)) {
            nameEnd += 2;
        }
        boolean restart = false;
        boolean other = false;
        boolean changesGrid = false;
        boolean incrementGiven = false;
        boolean startGiven = false;
        String restartValue = "";
        int n = end(tokens);
        for (int j = nameEnd + 1; j < n; j++) {
            if (tokens.kind(j) != TokenKind.IDENTIFIER) {
                continue;
            }
            if (tokens.textEqualsIgnoreCase(j, "increment") || tokens.textEqualsIgnoreCase(j, "start")) {
                changesGrid = true;
                incrementGiven |= tokens.textEqualsIgnoreCase(j, "increment");
                startGiven |= tokens.textEqualsIgnoreCase(j, "start");
            } else if (tokens.textEqualsIgnoreCase(j, "restart")) {
                restart = true;
                int v = tokens.textEqualsIgnoreCase(j + 1, "with") ? j + 2 : j + 1;
                int last = v;
                if (v < n && tokens.isOperator(v, "-")) {
                    last = v + 1;
                }
                if (last < n && (tokens.kind(last) == TokenKind.INTEGER || tokens.kind(last).isParameter())) {
                    restartValue = tokens.sql().substring(tokens.start(v), tokens.end(last));
                    j = last;
                }
            } else if (!tokens.textEqualsIgnoreCase(j, "with") && !tokens.textEqualsIgnoreCase(j, "by")) {
                other = true;
            }
        }
        boolean parameter = restartValue.indexOf('$') >= 0 || restartValue.indexOf('?') >= 0;
        if (parameter) {
            // RESTART WITH a parameter alone is done as setval(seq, $n, false); with other options it is refused.
            return changesGrid || other ? of(Kind.ALTER_REFUSED)
                    : new SequenceStatement(Kind.RESTART_SEQUENCE, name, SqlText.literal(name), restartValue, "false", "", false, false);
        }
        if (changesGrid || !restartValue.isEmpty()) {
            SequenceStatement result = new SequenceStatement(Kind.ALTER_SEQUENCE, name, SqlText.literal(name), restartValue, "false", "", false, false);
            result.ownedBy(tokens);
            result.incrementGiven = incrementGiven;
            result.startGiven = startGiven;
            result.plainRestart = restart && restartValue.isEmpty();
            return result;
        }
        SequenceStatement owned = new SequenceStatement(Kind.OWNED_BY, name, SqlText.literal(name), "", "false", "", false, false);
        owned.ownedBy(tokens);
        // RESTART alone (each copy to its own start), renames, CACHE ...: the same on every copy
        return owned.ownedByTable.isEmpty() ? null : owned;
    }

    /**
     * ALTER TABLE: serial or identity columns added ({@link #ownsNew()}), {@code ALTER [COLUMN] c RESTART [WITH] v}
     * ({@link #name()} is the column, {@link #valueArgument()} the value), or {@code SET INCREMENT} / {@code SET START}
     * of an identity column (refused). RESTART without a value restarts each copy at its own start: nothing to do.
     */
    private static SequenceStatement alterTable(TokenList tokens) {
        int n = end(tokens);
        String column = "";
        String value = "";
        for (int j = 3; j < n; j++) {
            if (tokens.kind(j) != TokenKind.IDENTIFIER) {
                continue;
            }
            if (tokens.textEqualsIgnoreCase(j, "set") && (tokens.textEqualsIgnoreCase(j + 1, "increment") || tokens.textEqualsIgnoreCase(j + 1, "start"))) {
                return of(Kind.ALTER_TABLE_REFUSED);
            }
            if (!tokens.textEqualsIgnoreCase(j, "restart")) {
                continue;
            }
            int v = tokens.textEqualsIgnoreCase(j + 1, "with") ? j + 2 : j + 1;
            int last = v < n && tokens.isOperator(v, "-") ? v + 1 : v;
            if (last >= n || tokens.kind(last) != TokenKind.INTEGER && !tokens.kind(last).isParameter()) {
                continue;
            }
            boolean columnBefore = tokens.kind(j - 1).isIdentifier()
                    && (tokens.textEqualsIgnoreCase(j - 2, "column") || tokens.textEqualsIgnoreCase(j - 2, "alter"));
            if (!columnBefore || !column.isEmpty()) {
                return of(Kind.ALTER_TABLE_REFUSED);
            }
            column = tokens.identifier(j - 1);
            value = tokens.sql().substring(tokens.start(v), tokens.end(last));
            j = last;
        }
        boolean ownsNew = mentionsOwnedSequence(tokens);
        if (!ownsNew && column.isEmpty()) {
            return null;
        }
        return new SequenceStatement(Kind.ALTER_TABLE, column, "", value, "false", "", ownsNew, false);
    }

    /** ALTER TABLE: whether it may add serial or identity columns (whose new sequences are then interleaved). */
    public boolean ownsNew() {
        return kind == Kind.ALTER_TABLE && ifNotExists;
    }

    /** ALTER TABLE ... RESTART WITH: the statement each actual table's data source runs after it, as setval(seq, v, false). */
    public String restartOnCopy(String actualTable) {
        return setvalOnCopy("pg_catalog.pg_get_serial_sequence(" + SqlText.literal(SqlText.identifier(actualTable)) + ", " + SqlText.literal(name) + ")",
                valueArgument, "false");
    }

    /** The owned sequences of an actual table, as a comma-separated list of OIDs (never empty: 0 stands for none). */
    public static String ownedSequences(String table) {
        return "SELECT coalesce(string_agg(objid::text, ','), '0') FROM pg_catalog.pg_depend WHERE " + owned(table);
    }

    private static String owned(String table) {
        return "classid = 'pg_catalog.pg_class'::regclass AND refclassid = 'pg_catalog.pg_class'::regclass AND refobjid = "
                + SqlText.literal(SqlText.identifier(table)) + "::regclass AND deptype IN ('a', 'i')";
    }

    private static String ownedSince(String table, String before) {
        return "seqrelid IN (SELECT objid FROM pg_catalog.pg_depend WHERE " + owned(table) + ") AND seqrelid::oid::text <> ALL ("
                + SqlText.literal("{" + before + "}") + "::text[])";
    }

    /** The greatest last value of the sequences of an actual table that are not among {@code before}: NULL when none was called. */
    public static String lastValueOwnedSince(String table, String before) {
        return "SELECT max(pg_catalog.pg_sequence_last_value(seqrelid)) FROM pg_catalog.pg_sequence WHERE " + ownedSince(table, before);
    }

    /**
     * Interleaves the sequences of an actual table that are not among {@code before} ({@link #ownedSequences}), each
     * restarted past {@code past} (the greatest value they handed out on any actual table, filling the rows there when
     * the column was added), or at its start when {@code past} is null.
     */
    public static String interleaveOwnedSince(String table, String before, int index, int count, String past) {
        return interleave(ownedSince(table, before), index, count, past);
    }

    /** SELECT setval(a, b [, c]) [FROM ...]: nothing else in the select list. */
    private static SequenceStatement selectSetval(TokenList tokens) {
        int n = end(tokens);
        if (n < 4 || !tokens.textEqualsIgnoreCase(0, "select") || !tokens.textEqualsIgnoreCase(1, "setval") || !tokens.is(2, TokenKind.LEFT_PAREN)) {
            return null;
        }
        int[] commas = new int[3];
        int count = 0;
        int depth = 0;
        int close = -1;
        for (int i = 3; i < n && close < 0; i++) {
            switch (tokens.kind(i)) {
                case LEFT_PAREN, LEFT_BRACKET -> depth++;
                case RIGHT_PAREN, RIGHT_BRACKET -> {
                    if (depth == 0) {
                        close = i;
                    }
                    depth--;
                }
                case COMMA -> {
                    if (depth == 0) {
                        if (count == 2) {
                            return null;
                        }
                        commas[count++] = i;
                    }
                }
                default -> {
                    // part of an argument
                }
            }
        }
        if (close < 0 || count == 0) {
            return null;
        }
        int restStart = close + 1;
        if (restStart < n && !tokens.textEqualsIgnoreCase(restStart, "from")) {
            return null; // an alias, an operator, a second select item: not the plain form
        }
        String sql = tokens.sql();
        String sequence = between(tokens, 3, commas[0]);
        String value = between(tokens, commas[0] + 1, count > 1 ? commas[1] : close);
        String called = count > 1 ? between(tokens, commas[1] + 1, close) : "true";
        String rest = restStart < n ? sql.substring(tokens.start(restStart), tokens.end(n - 1)) : "";
        String query;
        boolean subquery = false;
        int first = commas[0] + 1;
        int last = (count > 1 ? commas[1] : close) - 1;
        if (rest.isEmpty() && tokens.is(first, TokenKind.LEFT_PAREN) && tokens.is(last, TokenKind.RIGHT_PAREN) && matching(tokens, first) == last
                && (tokens.textEqualsIgnoreCase(first + 1, "select") || tokens.textEqualsIgnoreCase(first + 1, "with"))) {
            query = between(tokens, first + 1, last);
            subquery = true;
        } else {
            query = "SELECT " + value + (rest.isEmpty() || count < 2 ? "" : ", " + called) + (rest.isEmpty() ? "" : " " + rest);
        }
        SequenceStatement result = new SequenceStatement(Kind.SETVAL, "", sequence, value, called, query, false, subquery);
        result.sequenceStart = tokens.start(3);
        // is_called over the FROM's rows (Django's sqlsequencereset: max("id") IS NOT null) is found with the value
        result.calledFromQuery = !subquery && !rest.isEmpty() && count > 1;
        return result;
    }

    /** The statement's tokens without a trailing semicolon. */
    private static int end(TokenList tokens) {
        int n = tokens.size();
        while (n > 0 && tokens.is(n - 1, TokenKind.SEMICOLON)) {
            n--;
        }
        return n;
    }

    private static int matching(TokenList tokens, int open) {
        int depth = 0;
        for (int i = open, n = tokens.size(); i < n; i++) {
            if (tokens.is(i, TokenKind.LEFT_PAREN)) {
                depth++;
            } else if (tokens.is(i, TokenKind.RIGHT_PAREN) && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static String between(TokenList tokens, int from, int to) {
        return from >= to ? "" : tokens.sql().substring(tokens.start(from), tokens.end(to - 1));
    }

    /** name, or schema.name, as written: identifiers and dots. */
    private static String qualifiedName(TokenList tokens, int i) {
        int n = tokens.size();
        if (i >= n || !tokens.kind(i).isIdentifier()) {
            return "";
        }
        int last = i;
        while (last + 2 < n && tokens.is(last + 1, TokenKind.DOT) && tokens.kind(last + 2).isIdentifier()) {
            last += 2;
        }
        return tokens.sql().substring(tokens.start(i), tokens.end(last));
    }

    /** Whether setval's value is a scalar subquery: more than one row is then PostgreSQL's 21000. */
    public boolean fromSubquery() {
        return fromSubquery;
    }

    /** The query whose one value setval sets. */
    public String valueQuery() {
        return valueQuery;
    }

    /**
     * The statement each data source runs for {@code setval(sequence, value, is_called)}: its copy is set so that the
     * next value it hands out is the first of its own values past {@code value} (at or past it when is_called is
     * false), so that the next value handed out anywhere is past {@code value} and unique. A value outside the
     * sequence's bounds, or a relation that is no sequence, gets PostgreSQL's own error from a plain setval; a NULL
     * value sets nothing and answers NULL, as the strict function does. The answer is {@code value}, as setval's is.
     *
     * @param value the value as an SQL expression (a literal found by {@link #valueQuery()}, or setval's own argument)
     */
    public String setvalOnCopy(String value) {
        return setvalOnCopy(sequenceArgument, value, calledArgument);
    }

    /**
     * An error's position (1-based, as in an ErrorResponse) in {@link #setvalOnCopy}'s text, as a position in the
     * client's statement: within the sequence argument, the same character there; elsewhere 0 (none), since the
     * client never sent that text.
     */
    public int clientPosition(int position) {
        int offset = position - 1 - SETVAL_SEQUENCE_OFFSET;
        return sequenceStart < 0 || offset < 0 || offset >= sequenceArgument.length() ? 0 : sequenceStart + offset + 1;
    }

    private static final String SETVAL_HEAD = "SELECT CASE WHEN a.v IS NULL OR a.c IS NULL THEN NULL::int8"
            + " WHEN s.seqrelid IS NULL OR a.v < s.seqmin OR a.v > s.seqmax THEN setval(a.r, a.v, a.c)"
            + " ELSE setval(a.r, (s.seqstart + ceil(((a.v + CASE WHEN a.c THEN sign(s.seqincrement) ELSE 0 END) - s.seqstart)::numeric"
            + " / s.seqincrement) * s.seqincrement)::int8, false) * 0 + a.v END AS setval"
            + " FROM (SELECT (";

    /** Where the sequence argument starts in {@link #setvalOnCopy}'s text. */
    private static final int SETVAL_SEQUENCE_OFFSET = SETVAL_HEAD.length();

    static String setvalOnCopy(String sequence, String value, String called) {
        return SETVAL_HEAD + sequence + ")::regclass AS r, (" + value + ")::int8 AS v, (" + called + ")::bool AS c) a"
                + " LEFT JOIN pg_catalog.pg_sequence s ON s.seqrelid = a.r";
    }

    /**
     * For a sequence made before it could be interleaved (before Ashlar did, or on the backends directly): what each
     * copy is, {@code start,increment,last value} (last value empty when never called), or no row when the argument
     * names no sequence. Null when the sequence argument has a parameter (it cannot go into a DO block).
     */
    public String copyQuery() {
        if (sequenceArgument.indexOf('$') >= 0 || sequenceArgument.indexOf('?') >= 0) {
            return null;
        }
        return "SELECT s.seqstart || ',' || s.seqincrement || ',' || coalesce(pg_catalog.pg_sequence_last_value(s.seqrelid)::text, '')"
                + " FROM pg_catalog.pg_sequence s WHERE s.seqrelid = pg_catalog.to_regclass((" + sequenceArgument + ")::text)";
    }

    /**
     * The table whose column owns setval's sequence (a serial or identity column), by name, or no row: a query for a
     * data source. Null when the sequence is a parameter.
     */
    public String ownerQuery() {
        if (sequenceArgument.indexOf('$') >= 0 || sequenceArgument.indexOf('?') >= 0) {
            return null;
        }
        return ownerQuery("pg_catalog.to_regclass((" + sequenceArgument + ")::text)");
    }

    /** The table whose column owns the ALTERed sequence, by name, or no row. */
    public String alteredOwnerQuery() {
        return ownerQuery("pg_catalog.to_regclass(" + SqlText.literal(name) + ")");
    }

    private static String ownerQuery(String sequence) {
        return "SELECT c.relname FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.refobjid"
                + " WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
                + " AND d.deptype IN ('a', 'i') AND d.objid = " + sequence + " LIMIT 1";
    }

    /** Interleaves setval's sequence as copy {@code index} of {@code count}, going on past {@code past} (or from its start: null). */
    public String interleaveArgument(int index, int count, String past) {
        return interleave("seqrelid = (" + sequenceArgument + ")::regclass", index, count, past);
    }

    public boolean incrementGiven() {
        return incrementGiven;
    }

    public boolean startGiven() {
        return startGiven;
    }

    public boolean plainRestart() {
        return plainRestart;
    }

    /** ALTER SEQUENCE: what each copy is after the statement ran, {@code start,increment,last value} ({@link #copyQuery()}'s shape). */
    public String alteredCopyQuery() {
        return "SELECT s.seqstart || ',' || s.seqincrement || ',' || coalesce(pg_catalog.pg_sequence_last_value(s.seqrelid)::text, '')"
                + " FROM pg_catalog.pg_sequence s WHERE s.seqrelid = pg_catalog.to_regclass(" + SqlText.literal(name) + ")";
    }

    /** ALTER SEQUENCE: copy {@code index}'s grid and position. */
    public String regrid(long increment, long start, long restart) {
        return "ALTER SEQUENCE " + name + " INCREMENT BY " + increment + " START WITH " + start + " RESTART WITH " + restart;
    }

    /** setval's value argument as written (ALTER's RESTART value). */
    public String valueArgument() {
        return valueArgument;
    }

    /**
     * The statement that interleaves the sequences a condition on {@code pg_sequence} selects, as copy {@code index}
     * of {@code count}: increment times count, start moved by index increments, restarted there, or (an ascending
     * sequence, {@code past} not null) at its first value past {@code past}.
     */
    static String interleave(String condition, int index, int count, String past) {
        String restart = past == null ? "' RESTART'"
                : "' RESTART WITH ' || CASE WHEN s.inc < 0 OR " + past + " < s.st + " + index + " * s.inc THEN s.st + " + index + " * s.inc"
                + " ELSE s.st + " + index + " * s.inc + ceil((" + past + " + 1 - s.st - " + index + " * s.inc)::numeric / (s.inc * " + count
                + ")) * (s.inc * " + count + ") END";
        return "DO $ashlar$DECLARE s record; BEGIN FOR s IN SELECT seqrelid::regclass AS r, seqincrement AS inc, seqstart AS st"
                + " FROM pg_catalog.pg_sequence WHERE " + condition + " LOOP EXECUTE 'ALTER SEQUENCE ' || s.r || ' INCREMENT BY ' || (s.inc * " + count
                + ") || ' START WITH ' || (s.st + " + index + " * s.inc) || " + restart + "; END LOOP; END$ashlar$";
    }

    /** Interleaves the sequence this CREATE SEQUENCE made, as copy {@code index} of {@code count}. */
    public String interleaveSequence(int index, int count) {
        return interleave("seqrelid = " + SqlText.literal(name) + "::regclass", index, count, null);
    }

    /** Interleaves the sequences that serial and identity columns of actual table {@code table} own. */
    public static String interleaveOwned(String table, int index, int count) {
        return interleave("seqrelid IN (SELECT objid FROM pg_catalog.pg_depend WHERE " + owned(table) + ")", index, count, null);
    }

}
