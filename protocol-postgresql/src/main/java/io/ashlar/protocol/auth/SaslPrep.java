package io.ashlar.protocol.auth;

import java.text.Normalizer;

/**
 * SASLprep (RFC 4013) of a SCRAM password, as PostgreSQL's {@code pg_saslprep} applies it before
 * deriving the salted password: non-ASCII spaces become spaces, "commonly mapped to nothing"
 * characters are dropped, the result is NFKC-normalized. Like PostgreSQL, a password that fails
 * (control characters, unassigned code points, an empty result) is used exactly as given. Pure
 * ASCII without control characters is returned unchanged, which is the usual case.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html#SASL-SCRAM-SHA-256">SCRAM-SHA-256 Authentication</a>
 * @see <a href="https://datatracker.ietf.org/doc/html/rfc4013">RFC 4013</a>
 */
public final class SaslPrep {

    private SaslPrep() {
    }

    public static String prepare(String password) {
        if (isPrintableAscii(password)) {
            return password;
        }
        StringBuilder mapped = new StringBuilder(password.length());
        for (int i = 0; i < password.length(); ) {
            int codePoint = password.codePointAt(i);
            i += Character.charCount(codePoint);
            if (isNonAsciiSpace(codePoint)) {
                mapped.append(' ');
            } else if (!isMappedToNothing(codePoint)) {
                mapped.appendCodePoint(codePoint);
            }
        }
        String result = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        if (result.isEmpty()) {
            return password;
        }
        for (int i = 0; i < result.length(); ) {
            int codePoint = result.codePointAt(i);
            i += Character.charCount(codePoint);
            if (isProhibited(codePoint)) {
                return password;
            }
        }
        return result;
    }

    private static boolean isPrintableAscii(String value) {
        for (int i = 0; i < value.length(); i++) {
            char each = value.charAt(i);
            if (each < 0x20 || each > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** RFC 3454 table C.1.2. */
    private static boolean isNonAsciiSpace(int c) {
        return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F
                || c == 0x3000;
    }

    /** RFC 3454 table B.1. */
    private static boolean isMappedToNothing(int c) {
        return c == 0x00AD || c == 0x034F || c == 0x1806 || (c >= 0x180B && c <= 0x180D) || (c >= 0x200B && c <= 0x200D)
                || c == 0x2060 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF;
    }

    /** RFC 4013 section 2.3, approximated with the JDK's character data: controls, private use, unassigned, surrogates, non-characters. */
    private static boolean isProhibited(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.PRIVATE_USE || type == Character.UNASSIGNED
                || type == Character.SURROGATE || (c & 0xFFFE) == 0xFFFE || (c >= 0xFDD0 && c <= 0xFDEF)
                || (c >= 0x2FF0 && c <= 0x2FFB) || c == 0x0340 || c == 0x0341 || c == 0x200E || c == 0x200F
                || (c >= 0x202A && c <= 0x202E) || (c >= 0x206A && c <= 0x206F);
    }
}
