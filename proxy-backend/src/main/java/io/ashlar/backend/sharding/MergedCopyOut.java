package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.InsertColumn;
import io.ashlar.parser.statement.TableReference;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import io.ashlar.backend.execute.CopyStream;

/**
 * {@code COPY (query) TO STDOUT} and {@code COPY t [(columns)] TO STDOUT} over a table that spans several shards: the
 * proxy runs the equivalent SELECT ({@link #equivalentSelect}) through the normal sharded path, and this class turns
 * the merged rows into the COPY's data, formatted as PostgreSQL's COPY TO would ({@link CopyOutRowEncoder}). The
 * frontend drives it as it drives a backend's {@link CopyStream.Out}: CopyOutResponse from {@link #getFormat()} and
 * {@link #getFieldFormat(int)}, one CopyData per {@link #readFromCopy()} until it answers {@code null}, then CopyDone
 * and {@code COPY n} with {@link #getHandledRowCount()}.
 *
 * <p>Options. Text and CSV with every option COPY TO takes ({@code DELIMITER}, {@code NULL}, {@code HEADER},
 * {@code QUOTE}, {@code ESCAPE}, {@code FORCE_QUOTE}, {@code ENCODING}), read by {@link CopyOptions}. Binary format is
 * refused (0A000): the merged rows are text. {@code FORCE_NULL}, {@code FORCE_NOT_NULL} and {@code DEFAULT} are
 * refused as PostgreSQL refuses them in COPY TO. A header is written in text format too (PostgreSQL 15 and later).
 *
 * <p>Errors. A failure of the merged result while rows are read (a shard's error) ends the COPY with that error, its
 * fields intact, as an {@link SQLException} from {@link #readFromCopy()}.
 *
 * <p>One session thread drives an instance; nothing here is shared.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY">55.2.6. COPY Operations</a>
 */
public final class MergedCopyOut implements CopyStream.Out {

    private final QueryResult result;
    private final CopyOutRowEncoder encoder;
    private final int fieldCount;
    private byte[] header;
    private long rows;
    private boolean active = true;

    private MergedCopyOut(QueryResult result, CopyOutRowEncoder encoder, byte[] header) {
        this.result = result;
        this.encoder = encoder;
        this.fieldCount = result.columns().length;
        this.header = header;
    }

    /**
     * The SELECT whose rows a {@code COPY ... TO} writes, in the user's own text: the query of
     * {@code COPY (query) TO}, {@code SELECT * FROM t} for {@code COPY t TO}, {@code SELECT a, b FROM t} for
     * {@code COPY t (a, b) TO}. (PostgreSQL's {@code COPY t TO} leaves out generated columns, which {@code SELECT *}
     * includes: a caller that knows them may list the others instead.)
     *
     * @param statement a {@code COPY ... TO}
     */
    public static String equivalentSelect(AnalyzedStatement statement) {
        if (!(statement.body() instanceof CopyStatement copy) || copy.from()) {
            throw new IllegalArgumentException("not a COPY ... TO: " + statement.sql());
        }
        String sql = statement.sql();
        if (copy.query().isPresent()) {
            return copy.query().get().text(sql);
        }
        TableReference table = statement.tables().get(copy.table().getAsInt());
        StringBuilder result = new StringBuilder(sql.length() + 16).append("SELECT ");
        if (copy.columns().isEmpty()) {
            result.append('*');
        } else {
            List<InsertColumn> columns = copy.columns();
            for (int i = 0; i < columns.size(); i++) {
                if (i > 0) {
                    result.append(", ");
                }
                result.append(columns.get(i).range().text(sql));
            }
        }
        return result.append(" FROM ").append(table.range().text(sql)).toString();
    }

    /**
     * Starts the COPY over {@code result}, the merged result of {@link #equivalentSelect}. On failure the caller still
     * owns (and closes) {@code result}; afterwards this object closes it.
     *
     * @param sql            the COPY statement's text ({@code copy}'s ranges index into it)
     * @param copy           the analysed COPY TO
     * @param result         the merged rows, not yet read
     * @param clientEncoding the session's client_encoding: the merged rows' text is in it, and the data's when the
     *                       statement names no {@code ENCODING}
     * @throws SQLException 0A000 for binary format and for options COPY TO does not take, 42703 or 42P10 for a
     *                      FORCE_QUOTE column the COPY does not write, 22023 or 42601 for options PostgreSQL would refuse too
     */
    public static MergedCopyOut open(String sql, CopyStatement copy, QueryResult result,
                                     io.ashlar.backend.execute.ClientEncoding clientEncoding)
            throws SQLException {
        if (!result.hasRows()) {
            throw CopyErrors.error("0A000", "COPY query must have a RETURNING clause");
        }
        CopyOptions options = CopyOptions.parse(sql, copy, clientEncoding.name());
        if (options.format() == CopyOptions.Format.BINARY) {
            throw CopyErrors.error("0A000", "COPY TO in binary format over several shards is not supported",
                    "use FORMAT text or FORMAT csv");
        }
        if (options.hasDefault()) {
            throw CopyErrors.error("0A000", "COPY DEFAULT only available using COPY FROM");
        }
        ColumnDescription[] columns = result.columns();
        String[] names = new String[columns.length];
        for (int i = 0; i < columns.length; i++) {
            names[i] = columns[i].name();
        }
        boolean[] forceQuote = forceQuote(sql, copy, names, options.isCsv());
        CopyOutRowEncoder encoder = new CopyOutRowEncoder(options, forceQuote, clientEncoding.charset());
        byte[] header = options.header() ? encoder.header(names) : null;
        return new MergedCopyOut(result, encoder, header);
    }

    /**
     * Which columns {@code FORCE_QUOTE} names ({@code FORCE_QUOTE (a, b)}, {@code FORCE_QUOTE *}, or the pre-9.0
     * {@code FORCE QUOTE a, b}); also refuses {@code FORCE_NULL} and {@code FORCE_NOT_NULL}, which only COPY FROM takes.
     */
    private static boolean[] forceQuote(String sql, CopyStatement copy, String[] names, boolean csv) throws SQLException {
        boolean[] result = new boolean[names.length];
        TokenList tokens = Lexer.tokenize(copy.options().text(sql));
        int i = 0;
        while (i < tokens.size()) {
            if (!tokens.is(i, TokenKind.IDENTIFIER)) {
                i++;
                continue;
            }
            boolean generic = tokens.textEqualsIgnoreCase(i, "force_quote");
            boolean legacy = tokens.textEqualsIgnoreCase(i, "force") && word(tokens, i + 1, "quote");
            if (tokens.textEqualsIgnoreCase(i, "force_not_null")
                    || tokens.textEqualsIgnoreCase(i, "force") && word(tokens, i + 1, "not")) {
                throw CopyErrors.error("0A000", "COPY force not null only available using COPY FROM");
            }
            if (tokens.textEqualsIgnoreCase(i, "force_null")
                    || tokens.textEqualsIgnoreCase(i, "force") && word(tokens, i + 1, "null")) {
                throw CopyErrors.error("0A000", "COPY force null only available using COPY FROM");
            }
            if (!generic && !legacy) {
                i++;
                continue;
            }
            if (!csv) {
                throw CopyErrors.error("0A000", "COPY force quote available only in CSV mode");
            }
            i += generic ? 1 : 2;
            if (tokens.isOperator(i, "*")) {
                Arrays.fill(result, true);
                i++;
                continue;
            }
            boolean parenthesised = tokens.is(i, TokenKind.LEFT_PAREN);
            if (parenthesised) {
                i++;
            }
            List<String> listed = new ArrayList<>();
            while (i < tokens.size() && tokens.kind(i).isIdentifier()) {
                listed.add(tokens.identifier(i));
                i++;
                if (!tokens.is(i, TokenKind.COMMA)) {
                    break;
                }
                i++;
            }
            if (parenthesised && tokens.is(i, TokenKind.RIGHT_PAREN)) {
                i++;
            }
            for (String each : listed) {
                int at = indexOf(names, each);
                if (at < 0 && copy.columns().isEmpty()) {
                    throw CopyErrors.error("42703", "column \"" + each + "\" does not exist");
                }
                if (at < 0) {
                    throw CopyErrors.error("42P10", "FORCE_QUOTE column \"" + each + "\" not referenced by COPY");
                }
                result[at] = true;
            }
        }
        return result;
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean word(TokenList tokens, int i, String word) {
        return tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, word);
    }

    // ------------------------------------------------------------------ CopyOut

    @Override
    public int getFieldCount() {
        return fieldCount;
    }

    /** Always 0: text or CSV (binary is refused). */
    @Override
    public int getFormat() {
        return 0;
    }

    @Override
    public int getFieldFormat(int field) {
        return 0;
    }


    /** Whether the COPY still takes data (it ended, succeeded or not, otherwise). */
    public boolean isActive() {
        return active;
    }

    /** Stops reading and releases the merged result. */
    @Override
    public void cancelCopy() {
        finish();
    }

    /** The rows written so far (the header line is not a row). */
    @Override
    public long getHandledRowCount() {
        return rows;
    }

    /**
     * The next line: the header first when {@code HEADER} is set, then one line per row; {@code null} at the end.
     *
     * @throws SQLException the merged result's failure, with the shard's error fields
     */
    @Override
    public byte[] readFromCopy() throws SQLException {
        if (!active) {
            return null;
        }
        if (header != null) {
            byte[] line = header;
            header = null;
            return line;
        }
        try {
            if (!result.next()) {
                finish();
                return null;
            }
        } catch (StatementFailure e) {
            finish();
            throw CopyErrors.from(e);
        }
        rows++;
        return encoder.row(result.row(), fieldCount);
    }


    private void finish() {
        if (active) {
            active = false;
            result.close();
        }
    }
}
