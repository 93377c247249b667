package io.ashlar.rewrite.template;

import java.math.BigDecimal;

/**
 * Generated keys as SQL literals: numbers as they are, everything else (UUIDs, strings) as a
 * string constant with {@code '} doubled, which assumes {@code standard_conforming_strings} on,
 * PostgreSQL's default since 9.1.
 */
public final class KeyLiterals {

    private KeyLiterals() {
    }

    public static String literal(Object value) {
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Number number) {
            return number.toString();
        }
        String text = String.valueOf(value);
        StringBuilder result = new StringBuilder(text.length() + 2).append('\'');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                result.append('\'');
            }
            result.append(c);
        }
        return result.append('\'').toString();
    }
}
