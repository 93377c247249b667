package io.ashlar.parser;

/**
 * Values and names written into SQL text the proxy makes itself (a statement to a shard, a
 * setting to a backend), quoted once here so that every writer agrees with PostgreSQL's lexer.
 */
public final class SqlText {

    private SqlText() {
    }

    /**
     * A string literal of {@code value}. One that holds a backslash is written as an escape string
     * ({@code E'...'}, backslashes doubled): a plain literal's backslashes would be read as escapes
     * by a backend whose session runs with {@code standard_conforming_strings} off.
     */
    public static String literal(String value) {
        if (value.indexOf('\\') < 0) {
            return value.indexOf('\'') < 0 ? "'" + value + "'" : "'" + value.replace("'", "''") + "'";
        }
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    /** A quoted identifier of {@code name}: its case kept, double quotes doubled. */
    public static String identifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
