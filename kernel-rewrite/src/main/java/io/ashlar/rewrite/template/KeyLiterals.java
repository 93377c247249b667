package io.ashlar.rewrite.template;

import io.ashlar.parser.SqlText;
import java.math.BigDecimal;

/** Generated keys as SQL literals: numbers as they are, everything else (UUIDs, strings) as a string constant. */
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
        return SqlText.literal(String.valueOf(value));
    }
}
