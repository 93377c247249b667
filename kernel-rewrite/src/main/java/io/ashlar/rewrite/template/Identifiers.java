package io.ashlar.rewrite.template;

import io.ashlar.parser.SqlText;
import io.ashlar.parser.lexer.Keyword;

/**
 * Writing identifiers as PostgreSQL's {@code quote_ident} does
 * (<a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS">Identifiers
 * and Key Words</a>): double quotes when the name is not a lower-case word of letters, digits,
 * underscores and dollar signs, or when it is a keyword that cannot stand as a name.
 */
public final class Identifiers {

    private Identifiers() {
    }

    /** {@code name} as SQL text: quoted when {@code quote} or when it needs quoting. */
    public static String write(String name, boolean quote) {
        return !quote && !needsQuoting(name) ? name : SqlText.identifier(name);
    }

    /** Whether {@code name} must be quoted to mean exactly {@code name}. */
    public static boolean needsQuoting(String name) {
        if (name.isEmpty()) {
            return true;
        }
        char first = name.charAt(0);
        if (!(first >= 'a' && first <= 'z') && first != '_') {
            return true;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '_' && c != '$') {
                return true;
            }
        }
        Keyword keyword = Keyword.lookup(name, 0, name.length());
        return keyword != Keyword.NONE && keyword.category() != Keyword.Category.UNRESERVED;
    }
}
