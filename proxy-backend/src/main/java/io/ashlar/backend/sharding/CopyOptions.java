package io.ashlar.backend.sharding;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.CopyStatement;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of a {@code COPY ... FROM STDIN} that decide where its rows and fields begin and end, read from the
 * statement's own text: the parenthesised list ({@code WITH (FORMAT csv, HEADER, DELIMITER ';')}), the pre-9.0 word
 * list ({@code WITH CSV HEADER DELIMITER AS ';' NULL AS ''}), the pre-7.3 {@code USING DELIMITERS} and
 * {@code COPY BINARY}. The proxy splits the client's data by these and forwards every row unchanged to a shard whose
 * COPY carries the same options, so only what splitting and reading the sharding values needs is kept; options that
 * act on the server alone ({@code FREEZE}, {@code FORCE_QUOTE}, {@code ON_ERROR}, ...) are left to the shards.
 *
 * <p>Defaults and the one-byte rules are PostgreSQL's ({@code ProcessCopyOptions} in {@code copy.c}).
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>
 */
final class CopyOptions {

    /** The data formats of COPY. */
    enum Format { TEXT, CSV, BINARY }

    private final Format format;
    private final byte delimiter;
    private final byte quote;
    private final byte escape;
    private final byte[] nullMarker;
    private final byte[] defaultMarker;
    private final boolean hasDefault;
    private final boolean header;
    private final Charset charset;
    private final List<String> forceNull;
    private final boolean forceNullAll;
    private final List<String> forceNotNull;
    private final boolean forceNotNullAll;

    private CopyOptions(Builder b, Format format, Charset charset) throws SQLException {
        this.format = format;
        this.charset = charset;
        boolean csv = format == Format.CSV;
        this.delimiter = oneByte(b.delimiter == null ? (csv ? "," : "\t") : b.delimiter, "COPY delimiter", charset);
        this.quote = oneByte(b.quote == null ? "\"" : b.quote, "COPY quote", charset);
        this.escape = b.escape == null ? quote : oneByte(b.escape, "COPY escape", charset);
        this.nullMarker = (b.nullMarker == null ? (csv ? "" : "\\N") : b.nullMarker).getBytes(charset);
        this.hasDefault = b.defaultMarker != null;
        this.defaultMarker = hasDefault ? b.defaultMarker.getBytes(charset) : new byte[0];
        this.header = b.header;
        this.forceNull = List.copyOf(b.forceNull);
        this.forceNullAll = b.forceNullAll;
        this.forceNotNull = List.copyOf(b.forceNotNull);
        this.forceNotNullAll = b.forceNotNullAll;
    }

    /** Text format with every default: for tests and for COPY statements without options. */
    static CopyOptions text() {
        try {
            return new CopyOptions(new Builder(), Format.TEXT, StandardCharsets.UTF_8);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads the options of {@code copy}.
     *
     * @param sql           the statement's text ({@code copy}'s ranges index into it)
     * @param clientEncoding the encoding of the data when the statement names no {@code ENCODING} (the backend's
     *                       {@code client_encoding})
     * @throws SQLException 0A000 for what the proxy cannot split (an encoding whose characters embed ASCII bytes),
     *                      22023 or 42601 for options PostgreSQL would refuse too
     */
    static CopyOptions parse(String sql, CopyStatement copy, String clientEncoding) throws SQLException {
        Builder b = new Builder();
        TokenList prefix = Lexer.tokenize(sql.substring(0, copy.options().start()));
        if (prefix.size() > 1 && prefix.is(1, TokenKind.IDENTIFIER) && prefix.textEqualsIgnoreCase(1, "binary")) {
            b.format = "binary";
        }
        TokenList tokens = Lexer.tokenize(copy.options().text(sql));
        int i = 1; // past STDIN
        if (word(tokens, i, "using")) {
            i++;
        }
        if (word(tokens, i, "delimiters")) {
            b.delimiter = string(tokens, i + 1, "DELIMITERS");
            i += 2;
        }
        if (word(tokens, i, "with")) {
            i++;
        }
        if (tokens.is(i, TokenKind.LEFT_PAREN)) {
            genericOptions(tokens, i + 1, b);
        } else {
            legacyOptions(tokens, i, b);
        }
        Format format = switch (b.format == null ? "text" : b.format) {
            case "text" -> Format.TEXT;
            case "csv" -> Format.CSV;
            case "binary" -> Format.BINARY;
            default -> throw CopyErrors.error("22023", "COPY format \"" + b.format + "\" not recognized");
        };
        return new CopyOptions(b, format, charset(b.encoding == null ? clientEncoding : b.encoding));
    }

    Format format() {
        return format;
    }

    boolean isCsv() {
        return format == Format.CSV;
    }

    byte delimiter() {
        return delimiter;
    }

    byte quote() {
        return quote;
    }

    byte escape() {
        return escape;
    }

    /** The bytes that stand for SQL NULL, compared with a field's raw bytes. */
    byte[] nullMarker() {
        return nullMarker;
    }

    /** Whether a {@code DEFAULT} marker is set (PostgreSQL 16): a field of exactly those bytes takes the column default. */
    boolean hasDefault() {
        return hasDefault;
    }

    byte[] defaultMarker() {
        return defaultMarker;
    }

    /** Whether the first line is a header ({@code HEADER true} or {@code HEADER MATCH}). */
    boolean header() {
        return header;
    }

    /** The encoding of the data, used to read sharding values that are not plain ASCII. */
    Charset charset() {
        return charset;
    }

    /** Whether {@code FORCE_NULL} names {@code column} (CSV: a quoted field equal to the NULL marker is NULL too). */
    boolean forceNull(String column) {
        return forceNullAll || contains(forceNull, column);
    }

    /** Whether {@code FORCE_NOT_NULL} names {@code column} (CSV: the NULL marker is read as a string). */
    boolean forceNotNull(String column) {
        return forceNotNullAll || contains(forceNotNull, column);
    }

    private static boolean contains(List<String> columns, String column) {
        for (String each : columns) {
            if (each.equalsIgnoreCase(column)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder(format.name());
        result.append(" delimiter=").append(printable(delimiter)).append(" null=").append(new String(nullMarker, charset));
        if (format == Format.CSV) {
            result.append(" quote=").append(printable(quote)).append(" escape=").append(printable(escape));
        }
        if (hasDefault) {
            result.append(" default=").append(new String(defaultMarker, charset));
        }
        if (header) {
            result.append(" header");
        }
        result.append(" charset=").append(charset.name());
        if (forceNullAll || !forceNull.isEmpty()) {
            result.append(" forceNull=").append(forceNullAll ? "*" : String.join(",", forceNull));
        }
        if (forceNotNullAll || !forceNotNull.isEmpty()) {
            result.append(" forceNotNull=").append(forceNotNullAll ? "*" : String.join(",", forceNotNull));
        }
        return result.toString();
    }

    private static String printable(byte b) {
        return b == '\t' ? "\\t" : b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : "0x" + Integer.toHexString(b & 0xff);
    }

    // ------------------------------------------------------------------ the two option syntaxes

    /** {@code ( name [value], ... )}: PostgreSQL 9.0's generic list; {@code i} is just past the parenthesis. */
    private static void genericOptions(TokenList tokens, int i, Builder b) throws SQLException {
        while (i < tokens.size() && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
            String name = tokens.identifier(i).toLowerCase(Locale.ROOT);
            i++;
            List<String> list = new ArrayList<>();
            boolean all = false;
            String value = null;
            if (tokens.is(i, TokenKind.LEFT_PAREN)) {
                i++;
                while (i < tokens.size() && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
                    if (!tokens.is(i, TokenKind.COMMA)) {
                        list.add(value(tokens, i));
                    }
                    i++;
                }
                i++;
            } else if (tokens.isOperator(i, "*")) {
                all = true;
                i++;
            } else if (i < tokens.size() && !tokens.is(i, TokenKind.COMMA) && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
                value = value(tokens, i);
                i++;
            }
            switch (name) {
                case "format" -> b.format = value == null ? null : value.toLowerCase(Locale.ROOT);
                case "delimiter" -> b.delimiter = required(value, name);
                case "null" -> b.nullMarker = required(value, name);
                case "default" -> b.defaultMarker = required(value, name);
                case "quote" -> b.quote = required(value, name);
                case "escape" -> b.escape = required(value, name);
                case "encoding" -> b.encoding = required(value, name);
                case "header" -> b.header = header(value);
                case "force_null" -> {
                    b.forceNull.addAll(list);
                    b.forceNullAll |= all;
                }
                case "force_not_null" -> {
                    b.forceNotNull.addAll(list);
                    b.forceNotNullAll |= all;
                }
                default -> {
                    // FREEZE, FORCE_QUOTE, ON_ERROR, REJECT_LIMIT, LOG_VERBOSITY, ...: the shards apply them.
                }
            }
            while (i < tokens.size() && !tokens.is(i, TokenKind.COMMA) && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
                i++;
            }
            if (tokens.is(i, TokenKind.COMMA)) {
                i++;
            }
        }
    }

    /** {@code [BINARY] [DELIMITER [AS] 'c'] [NULL [AS] 's'] [CSV [HEADER] [QUOTE ...] [ESCAPE ...] [FORCE ...]] ...}. */
    private static void legacyOptions(TokenList tokens, int i, Builder b) throws SQLException {
        while (i < tokens.size() && !tokens.is(i, TokenKind.SEMICOLON) && !word(tokens, i, "where")) {
            String word = tokens.is(i, TokenKind.IDENTIFIER) ? tokens.identifier(i) : "";
            i++;
            switch (word) {
                case "binary" -> b.format = "binary";
                case "csv" -> b.format = "csv";
                case "header" -> b.header = true;
                case "delimiter", "null", "quote", "escape", "encoding" -> {
                    if (word(tokens, i, "as")) {
                        i++;
                    }
                    String value = string(tokens, i, word.toUpperCase(Locale.ROOT));
                    i++;
                    switch (word) {
                        case "delimiter" -> b.delimiter = value;
                        case "null" -> b.nullMarker = value;
                        case "quote" -> b.quote = value;
                        case "escape" -> b.escape = value;
                        default -> b.encoding = value;
                    }
                }
                case "force" -> {
                    boolean notNull = word(tokens, i, "not");
                    boolean quote = word(tokens, i, "quote");
                    i += notNull ? 2 : 1;
                    List<String> list = new ArrayList<>();
                    boolean all = false;
                    if (tokens.isOperator(i, "*")) {
                        all = true;
                        i++;
                    } else {
                        while (i < tokens.size() && tokens.kind(i).isIdentifier()) {
                            list.add(tokens.identifier(i));
                            i++;
                            if (!tokens.is(i, TokenKind.COMMA)) {
                                break;
                            }
                            i++;
                        }
                    }
                    if (notNull) {
                        b.forceNotNull.addAll(list);
                        b.forceNotNullAll |= all;
                    } else if (!quote) {
                        b.forceNull.addAll(list);
                        b.forceNullAll |= all;
                    }
                }
                case "freeze", "oids" -> {
                    // Server-side only.
                }
                default -> throw CopyErrors.error("42601", "syntax error in the options of COPY at \"" + tokens.text(i - 1) + "\"");
            }
        }
    }

    private static boolean word(TokenList tokens, int i, String word) {
        return tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, word);
    }

    /** A string constant, a word or a number, as PostgreSQL's {@code defGetString} reads it. */
    private static String value(TokenList tokens, int i) {
        TokenKind kind = tokens.kind(i);
        if (kind.isCharacterString()) {
            return tokens.stringValue(i);
        }
        if (kind.isIdentifier()) {
            return tokens.identifier(i);
        }
        return tokens.text(i);
    }

    private static String string(TokenList tokens, int i, String option) throws SQLException {
        if (i >= tokens.size() || !tokens.kind(i).isCharacterString()) {
            throw CopyErrors.error("42601", "COPY " + option + " needs a string constant");
        }
        return tokens.stringValue(i);
    }

    private static String required(String value, String option) throws SQLException {
        if (value == null) {
            throw CopyErrors.error("22023", option + " requires a parameter");
        }
        return value;
    }

    /** {@code HEADER}, {@code HEADER true|false|on|off|1|0|match}. */
    private static boolean header(String value) throws SQLException {
        if (value == null) {
            return true;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "on", "1", "match" -> true;
            case "false", "off", "0" -> false;
            default -> throw CopyErrors.error("22023", "header requires a Boolean value or \"match\"");
        };
    }

    private static byte oneByte(String value, String what, Charset charset) throws SQLException {
        byte[] bytes = value.getBytes(charset);
        if (bytes.length != 1) {
            throw CopyErrors.error("0A000", what + " must be a single one-byte character");
        }
        return bytes[0];
    }

    /** The Java charset of a PostgreSQL encoding name, matched as PostgreSQL matches them (case and punctuation ignored). */
    static Charset charset(String encoding) throws SQLException {
        io.ashlar.backend.execute.ClientEncoding known = io.ashlar.backend.execute.ClientEncoding.find(encoding);
        if (known != null && !known.asciiSafe()) {
            throw CopyErrors.error("0A000", "COPY of a table over several shards in encoding " + encoding + " is not supported",
                    "its characters may hold bytes that look like delimiters; use ENCODING 'UTF8' or convert the data");
        }
        if (known != null) {
            return known.charset();
        }
        if (Charset.isSupported(encoding)) {
            return Charset.forName(encoding);
        }
        // The shard checks the name; for splitting, any ASCII-compatible reading of the bytes serves.
        return StandardCharsets.ISO_8859_1;
    }

    /** The options as written, before defaults. */
    private static final class Builder {
        String format;
        String delimiter;
        String nullMarker;
        String defaultMarker;
        String quote;
        String escape;
        String encoding;
        boolean header;
        final List<String> forceNull = new ArrayList<>();
        boolean forceNullAll;
        final List<String> forceNotNull = new ArrayList<>();
        boolean forceNotNullAll;
    }
}
