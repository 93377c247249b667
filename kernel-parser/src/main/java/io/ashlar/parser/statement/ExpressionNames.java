package io.ashlar.parser.statement;

import java.util.Locale;

/** PostgreSQL's default output column names for expressions that have no alias. */
final class ExpressionNames {
    private ExpressionNames() {
    }

    /** The name of a function call ({@code lower(x)} gives {@code lower}), {@code case}, or {@code ?column?}. */
    static String figureName(String expression) {
        int i = 0;
        int length = expression.length();
        while (i < length && isWordChar(expression.charAt(i))) {
            i++;
        }
        if (i > 0 && i < length && expression.charAt(i) == '(' && !Character.isDigit(expression.charAt(0))) {
            return expression.substring(0, i).toLowerCase(Locale.ROOT);
        }
        if (i == 4 && expression.regionMatches(true, 0, "case", 0, 4)) {
            return "case";
        }
        return "?column?";
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
