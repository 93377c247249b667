package io.ashlar.backend.execute;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A PostgreSQL character set encoding a client may use ({@code client_encoding}), with the Java
 * charset that reads and writes the same bytes. Names are matched as PostgreSQL matches them
 * ({@code clean_encoding_name}: letters and digits, lower case) against its own names and aliases
 * (src/common/encnames.c), so {@code 'utf-8'}, {@code Latin-1}, {@code WINDOWS1252} and
 * {@code ISO_8859_15} are found; {@link #name()} is the canonical name PostgreSQL reports.
 *
 * @param name       PostgreSQL's canonical name ({@code UTF8}, {@code LATIN1}, {@code WIN1252})
 * @param charset    the Java charset of the same bytes
 * @param asciiSafe  whether every byte below 0x80 is the ASCII character (false for encodings
 *                   whose multi-byte characters may hold such bytes: SJIS, BIG5, GBK, UHC,
 *                   GB18030, JOHAB)
 * @param exact      whether the Java charset reads every character as PostgreSQL's conversion to UTF-8 does (both
 *                   built from the same mapping tables: the single-byte encodings, SJIS and UHC from Microsoft's CP932
 *                   and CP949): a sharded session reads routing values and merged text by it, so it takes no other.
 *                   Java's EUC-JP, for one, reads 0xA1C1 as U+301C where PostgreSQL reads U+FF5E, and has no
 *                   character for NEC's row 13 (0xADA1, ①), which PostgreSQL takes from CP932
 * @see <a href="https://www.postgresql.org/docs/current/multibyte.html#MULTIBYTE-CHARSET-SUPPORTED">Supported Character Sets</a>
 */
public record ClientEncoding(String name, Charset charset, boolean asciiSafe, boolean exact) {

    public static final ClientEncoding UTF8 = new ClientEncoding("UTF8", StandardCharsets.UTF_8, true, true);

    /** PostgreSQL's multi-byte encodings whose Java charset is not PostgreSQL's conversion table (see {@code exact}). */
    private static final java.util.Set<String> INEXACT = java.util.Set.of("EUC_JP", "EUC_KR", "EUC_CN", "EUC_TW", "BIG5", "GBK",
            "GB18030", "JOHAB", "SHIFT_JIS_2004");

    private static final Map<String, ClientEncoding> BY_NAME = new HashMap<>();

    static {
        add(UTF8, "utf8", "unicode");
        // SQL_ASCII: no conversion; the bytes pass as they are, and a database in UTF8 (the proxy's) checks that they
        // are UTF-8: read as such, as a UTF8 session's.
        add(new ClientEncoding("SQL_ASCII", StandardCharsets.UTF_8, true, true), "sqlascii");
        add("LATIN1", "ISO-8859-1", true, "latin1", "iso88591");
        add("LATIN2", "ISO-8859-2", true, "latin2", "iso88592");
        add("LATIN3", "ISO-8859-3", true, "latin3", "iso88593");
        add("LATIN4", "ISO-8859-4", true, "latin4", "iso88594");
        add("LATIN5", "ISO-8859-9", true, "latin5", "iso88599");
        add("LATIN6", "ISO-8859-10", true, "latin6", "iso885910");
        add("LATIN7", "ISO-8859-13", true, "latin7", "iso885913");
        add("LATIN8", "ISO-8859-14", true, "latin8", "iso885914");
        add("LATIN9", "ISO-8859-15", true, "latin9", "iso885915");
        add("LATIN10", "ISO-8859-16", true, "latin10", "iso885916");
        add("ISO_8859_5", "ISO-8859-5", true, "iso88595");
        add("ISO_8859_6", "ISO-8859-6", true, "iso88596");
        add("ISO_8859_7", "ISO-8859-7", true, "iso88597");
        add("ISO_8859_8", "ISO-8859-8", true, "iso88598");
        add("WIN1250", "windows-1250", true, "win1250", "windows1250");
        add("WIN1251", "windows-1251", true, "win1251", "windows1251", "win");
        add("WIN1252", "windows-1252", true, "win1252", "windows1252");
        add("WIN1253", "windows-1253", true, "win1253", "windows1253");
        add("WIN1254", "windows-1254", true, "win1254", "windows1254");
        add("WIN1255", "windows-1255", true, "win1255", "windows1255");
        add("WIN1256", "windows-1256", true, "win1256", "windows1256");
        add("WIN1257", "windows-1257", true, "win1257", "windows1257");
        add("WIN1258", "windows-1258", true, "win1258", "windows1258", "abc", "tcvn", "tcvn5712", "vscii");
        add("WIN866", "IBM866", true, "win866", "windows866", "alt");
        add("WIN874", "x-windows-874", true, "win874", "windows874");
        add("KOI8R", "KOI8-R", true, "koi8r", "koi8");
        add("KOI8U", "KOI8-U", true, "koi8u");
        add("EUC_JP", "EUC-JP", true, "eucjp");
        add("EUC_KR", "EUC-KR", true, "euckr");
        add("EUC_CN", "GB2312", true, "euccn");
        add("EUC_TW", "x-EUC-TW", true, "euctw");
        add("SJIS", "windows-31j", false, "sjis", "shiftjis", "mskanji", "win932", "windows932");
        add("BIG5", "Big5", false, "big5", "win950", "windows950");
        add("GBK", "GBK", false, "gbk", "win936", "windows936");
        add("UHC", "x-windows-949", false, "uhc", "win949", "windows949");
        add("GB18030", "GB18030", false, "gb18030");
        add("JOHAB", "x-Johab", false, "johab");
        add("SHIFT_JIS_2004", "x-SJIS_0213", false, "shiftjis2004");
    }

    private static void add(ClientEncoding encoding, String... keys) {
        for (String key : keys) {
            BY_NAME.put(key, encoding);
        }
    }

    private static void add(String name, String javaName, boolean asciiSafe, String... keys) {
        if (Charset.isSupported(javaName)) {
            add(new ClientEncoding(name, Charset.forName(javaName), asciiSafe, !INEXACT.contains(name)), keys);
        }
    }

    /**
     * The encoding PostgreSQL would take {@code name} for, or null when it names none that a Java
     * charset reads (EUC_JIS_2004 and MULE_INTERNAL have none).
     */
    public static ClientEncoding find(String name) {
        return BY_NAME.get(key(name));
    }

    /** An encoding name as PostgreSQL compares them: letters and digits only, lower case. */
    public static String key(String name) {
        StringBuilder result = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 128 && Character.isLetterOrDigit(c)) {
                result.append(Character.toLowerCase(c));
            }
        }
        return result.toString();
    }

    /**
     * The encoding the client's text is checked against, as PostgreSQL names it in its error: SQL_ASCII's is checked
     * as UTF8 (the database's), any other's as itself.
     */
    public String checkedAs() {
        return charset == StandardCharsets.UTF_8 ? "UTF8" : name;
    }
}
