package io.ashlar.parser.lexer;

/**
 * The PostgreSQL keywords the analyzer looks at, with PostgreSQL's category for each (see
 * <a href="https://www.postgresql.org/docs/current/sql-keywords-appendix.html">Appendix C, SQL Key
 * Words</a>). Every reserved and type/function-name keyword is listed, because those decide where a
 * table alias may stand; unreserved keywords are listed only when the analyzer matches them. A word
 * not listed here is {@link #NONE} and behaves like a plain identifier, which is exactly what an
 * unreserved keyword is outside the grammar rule that names it.
 *
 * <p>{@link #NONE} stands for "not a keyword" so that the per-token lookup never returns null.
 */
public enum Keyword {
    NONE(Category.UNRESERVED),

    // Reserved keywords: never a column, table, function or type name (unless quoted).
    ALL(Category.RESERVED), ANALYSE(Category.RESERVED), ANALYZE(Category.RESERVED), AND(Category.RESERVED),
    ANY(Category.RESERVED), ARRAY(Category.RESERVED), AS(Category.RESERVED), ASC(Category.RESERVED),
    ASYMMETRIC(Category.RESERVED), BOTH(Category.RESERVED), CASE(Category.RESERVED), CAST(Category.RESERVED),
    CHECK(Category.RESERVED), COLLATE(Category.RESERVED), COLUMN(Category.RESERVED),
    CONSTRAINT(Category.RESERVED), CREATE(Category.RESERVED), CURRENT_CATALOG(Category.RESERVED),
    CURRENT_DATE(Category.RESERVED), CURRENT_ROLE(Category.RESERVED), CURRENT_TIME(Category.RESERVED),
    CURRENT_TIMESTAMP(Category.RESERVED), CURRENT_USER(Category.RESERVED), DEFAULT(Category.RESERVED),
    DEFERRABLE(Category.RESERVED), DESC(Category.RESERVED), DISTINCT(Category.RESERVED), DO(Category.RESERVED),
    ELSE(Category.RESERVED), END(Category.RESERVED), EXCEPT(Category.RESERVED), FALSE(Category.RESERVED),
    FETCH(Category.RESERVED), FOR(Category.RESERVED), FOREIGN(Category.RESERVED), FROM(Category.RESERVED),
    GRANT(Category.RESERVED), GROUP(Category.RESERVED), HAVING(Category.RESERVED), IN(Category.RESERVED),
    INITIALLY(Category.RESERVED), INTERSECT(Category.RESERVED), INTO(Category.RESERVED),
    LATERAL(Category.RESERVED), LEADING(Category.RESERVED), LIMIT(Category.RESERVED),
    LOCALTIME(Category.RESERVED), LOCALTIMESTAMP(Category.RESERVED), NOT(Category.RESERVED),
    NULL(Category.RESERVED), OFFSET(Category.RESERVED), ON(Category.RESERVED), ONLY(Category.RESERVED),
    OR(Category.RESERVED), ORDER(Category.RESERVED), PLACING(Category.RESERVED), PRIMARY(Category.RESERVED),
    REFERENCES(Category.RESERVED), RETURNING(Category.RESERVED), SELECT(Category.RESERVED),
    SESSION_USER(Category.RESERVED), SOME(Category.RESERVED), SYMMETRIC(Category.RESERVED),
    SYSTEM_USER(Category.RESERVED), TABLE(Category.RESERVED), THEN(Category.RESERVED), TO(Category.RESERVED),
    TRAILING(Category.RESERVED), TRUE(Category.RESERVED), UNION(Category.RESERVED), UNIQUE(Category.RESERVED),
    USER(Category.RESERVED), USING(Category.RESERVED), VARIADIC(Category.RESERVED), WHEN(Category.RESERVED),
    WHERE(Category.RESERVED), WINDOW(Category.RESERVED), WITH(Category.RESERVED),

    // Type or function name keywords: may name a function or type, never a table or column alias.
    AUTHORIZATION(Category.TYPE_FUNC_NAME), BINARY(Category.TYPE_FUNC_NAME), COLLATION(Category.TYPE_FUNC_NAME),
    CONCURRENTLY(Category.TYPE_FUNC_NAME), CROSS(Category.TYPE_FUNC_NAME), CURRENT_SCHEMA(Category.TYPE_FUNC_NAME),
    FREEZE(Category.TYPE_FUNC_NAME), FULL(Category.TYPE_FUNC_NAME), ILIKE(Category.TYPE_FUNC_NAME),
    INNER(Category.TYPE_FUNC_NAME), IS(Category.TYPE_FUNC_NAME), ISNULL(Category.TYPE_FUNC_NAME),
    JOIN(Category.TYPE_FUNC_NAME), LEFT(Category.TYPE_FUNC_NAME), LIKE(Category.TYPE_FUNC_NAME),
    NATURAL(Category.TYPE_FUNC_NAME), NOTNULL(Category.TYPE_FUNC_NAME), OUTER(Category.TYPE_FUNC_NAME),
    OVERLAPS(Category.TYPE_FUNC_NAME), RIGHT(Category.TYPE_FUNC_NAME), SIMILAR(Category.TYPE_FUNC_NAME),
    TABLESAMPLE(Category.TYPE_FUNC_NAME), VERBOSE(Category.TYPE_FUNC_NAME),

    // Column name keywords the analyzer matches.
    BETWEEN(Category.COL_NAME), BIGINT(Category.COL_NAME), BIT(Category.COL_NAME), BOOLEAN(Category.COL_NAME),
    CHAR(Category.COL_NAME), CHARACTER(Category.COL_NAME), DEC(Category.COL_NAME), DECIMAL(Category.COL_NAME),
    EXISTS(Category.COL_NAME), FLOAT(Category.COL_NAME), GROUPING(Category.COL_NAME), INT(Category.COL_NAME),
    INTEGER(Category.COL_NAME), INTERVAL(Category.COL_NAME), NATIONAL(Category.COL_NAME), NCHAR(Category.COL_NAME),
    /** The word {@code none} ({@code SET ROLE NONE}); the constant {@link #NONE} means "no keyword". */
    NONE_KEYWORD("none", Category.COL_NAME), NUMERIC(Category.COL_NAME), PRECISION(Category.COL_NAME),
    REAL(Category.COL_NAME), ROW(Category.COL_NAME), SETOF(Category.COL_NAME), SMALLINT(Category.COL_NAME),
    TIME(Category.COL_NAME), TIMESTAMP(Category.COL_NAME), VALUES(Category.COL_NAME), VARCHAR(Category.COL_NAME),

    // Unreserved keywords the analyzer matches.
    ABORT, ACCESS, ADD, ALTER, ALWAYS, AT, ATOMIC, ATTACH, BEGIN, BY, CALL, CASCADE, CASCADED, CHAIN,
    CHARACTERISTICS,
    CLOSE, COMMENT, COMMIT, COMMITTED, CONFLICT, CONTINUE, COPY, CUBE, CURRENT, CYCLE, DAY, DEALLOCATE, DECLARE, DELETE,
    DETACH, DISCARD, DOUBLE, DROP, EXECUTE, EXPLAIN, FILTER, FIRST, FUNCTION, GLOBAL, GROUPS, HOUR, IDENTITY, IF,
    INDEX, INHERIT, INHERITS, INSERT, ISOLATION, KEY, LAST, LEVEL, LOCAL, LOCK, LOCKED, MATERIALIZED, MERGE,
    MINUTE, MONTH, NAMES, NEXT, NO, NOTHING, NOWAIT, NULLS, OF, ORDINALITY, OTHERS, OVER, OVERRIDING, PARTITION,
    PLANS, PREPARE, PREPARED, PROCEDURE, PROGRAM, READ, RECURSIVE, RELEASE, RENAME, REPEATABLE, REPLACE, RESET,
    RESTART, RESTRICT, ROLE, ROLLBACK, ROLLUP, ROWS, SAVEPOINT, SCHEMA, SEARCH, SECOND, SEQUENCES, SERIALIZABLE,
    SESSION, SET, SETS, SHARE, SHOW, SKIP, SNAPSHOT, START, STDIN, STDOUT, SYSTEM, TEMP, TEMPORARY, TIES,
    TRANSACTION, TRUNCATE, UESCAPE, UNCOMMITTED, UNLOGGED, UPDATE, VALUE, VARYING, VIEW, WITHIN, WORK, WRITE,
    YEAR, ZONE;

    /** PostgreSQL's keyword categories, from most to least permissive. */
    public enum Category {
        /** Usable as any name. */
        UNRESERVED,
        /** Usable as a column or table name, not as a function or type name. */
        COL_NAME,
        /** Usable as a function or type name, not as a column or table name. */
        TYPE_FUNC_NAME,
        /** Not usable as a name at all. */
        RESERVED
    }

    private final String text;
    private final Category category;

    Keyword() {
        this(Category.UNRESERVED);
    }

    Keyword(Category category) {
        this.text = name().toLowerCase(java.util.Locale.ROOT);
        this.category = category;
    }

    Keyword(String text, Category category) {
        this.text = text;
        this.category = category;
    }

    /** The keyword as PostgreSQL spells it, in lower case. */
    public String text() {
        return text;
    }

    public Category category() {
        return category;
    }

    /**
     * Whether the word may stand as a table or column name or alias ({@code ColId} in gram.y):
     * anything but reserved and type/function-name keywords.
     */
    public boolean isColumnIdentifier() {
        return category == Category.UNRESERVED || category == Category.COL_NAME;
    }

    // Lookup: open addressing over a case-folding hash of the word, so that the lexer looks a word up
    // without allocating a String for it.
    private static final int MAX_LENGTH;
    private static final Keyword[] LOOKUP;
    private static final int MASK;

    static {
        Keyword[] all = values();
        int size = Integer.highestOneBit(all.length * 4);
        Keyword[] table = new Keyword[size];
        int max = 0;
        for (Keyword keyword : all) {
            if (keyword == NONE) {
                continue;
            }
            max = Math.max(max, keyword.text.length());
            int slot = hash(keyword.text, 0, keyword.text.length()) & (size - 1);
            while (table[slot] != null) {
                slot = (slot + 1) & (size - 1);
            }
            table[slot] = keyword;
        }
        LOOKUP = table;
        MASK = size - 1;
        MAX_LENGTH = max;
    }

    private static int hash(CharSequence text, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            h = 31 * h + c;
        }
        return h ^ (h >>> 16);
    }

    /**
     * The keyword spelled by {@code text[start, end)} in any ASCII letter case, or {@link #NONE}.
     * PostgreSQL folds only ASCII letters when matching keywords, and so does this.
     */
    public static Keyword lookup(CharSequence text, int start, int end) {
        int length = end - start;
        if (length < 2 || length > MAX_LENGTH) {
            return NONE;
        }
        int slot = hash(text, start, end) & MASK;
        Keyword candidate;
        while ((candidate = LOOKUP[slot]) != null) {
            if (matches(candidate.text, text, start, length)) {
                return candidate;
            }
            slot = (slot + 1) & MASK;
        }
        return NONE;
    }

    private static boolean matches(String keyword, CharSequence text, int start, int length) {
        if (keyword.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(start + i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != keyword.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static final Keyword[] BY_ORDINAL = values();

    static Keyword of(int ordinal) {
        return BY_ORDINAL[ordinal];
    }
}
