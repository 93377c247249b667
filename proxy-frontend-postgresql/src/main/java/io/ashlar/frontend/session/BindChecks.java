package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.frontend.server.MessageRefusals;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.merge.value.TypeOids;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What PostgreSQL's {@code exec_bind_message} refuses in a Bind, in the order it finds it and with
 * its words: the statement (26000), the number of values (08P01), a transaction that failed
 * (25P02, but for COMMIT and ROLLBACK), a named portal that exists (42P03), each value's format
 * code (22023: only 0, text, and 1, binary, exist) and the
 * length of a binary value of a fixed-size type (08P01, 22P03), then the number of result formats (08P01).
 * A parameter format count that fits neither 0, 1 nor the values makes the Bind malformed (the
 * decoder's judgement, {@link #malformed}): refused once the statement is found, as PostgreSQL
 * refuses it before it counts the statement's parameters. Result format codes other than 0 and
 * 1 pass Bind and Describe, as in PostgreSQL, and fail the first row sent in them
 * ({@link #resultFormats}).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BIND">Bind</a>
 */
final class BindChecks {

    private static final String[] TRANSACTION_EXITS = {"commit", "end", "rollback", "abort"};

    private BindChecks() {
    }

    /** The Bind names a statement the session does not have. */
    static ErrorFields missingStatement(String name) {
        return name.isEmpty() ? ErrorFields.error("26000", "unnamed prepared statement does not exist")
                : ErrorFields.error("26000", "prepared statement \"" + name + "\" does not exist");
    }

    /**
     * The error of a malformed message. For a Bind whose names read, what PostgreSQL checks before
     * it reads the values comes first, in its order: the statement (26000), the format count (the
     * decoder's 08P01), the value count (08P01) and a failed transaction (25P02).
     *
     * @param transactionFailed whether the session's transaction block failed (status 'E')
     */
    static ErrorFields malformed(FrontendMessage.Malformed malformed, Map<String, PreparedStatement> statements,
                                 boolean transactionFailed) {
        if (malformed.type() == Bind.TYPE) {
            String name = Bind.statementOf(malformed.frame(), StandardCharsets.UTF_8);
            PreparedStatement statement = name == null ? null : statements.get(name);
            if (name != null && statement == null) {
                return missingStatement(name);
            }
            int supplied = Bind.valueCountOf(malformed.frame());
            if (statement != null && supplied >= 0 && !malformed.reason().startsWith("bind message has")) {
                int required = statement.prepared.parameterTypes().length;
                if (supplied != required) {
                    return ErrorFields.error("08P01", "bind message supplies " + supplied + " parameters, but prepared"
                            + " statement \"" + name + "\" requires " + required);
                }
                if (transactionFailed && (supplied != 0 || !exitsTransaction(statement.sql))) {
                    return ErrorFields.inFailedTransaction();
                }
                int format = Bind.unsupportedFormatOf(malformed.frame());
                if (format >= 0) {
                    return ErrorFields.error("22023", "unsupported format code: " + (short) format);
                }
            }
        }
        return MessageRefusals.error(malformed);
    }

    /**
     * The error of a Bind of a statement the session has, or null when it binds.
     *
     * @param transactionFailed whether the session's transaction block failed (status 'E')
     * @param portalExists whether a portal of the Bind's name is open (the unnamed one is replaced silently)
     */
    static ErrorFields refusal(Bind bind, PreparedStatement statement, boolean transactionFailed, boolean portalExists) {
        int supplied = bind.parameterValues().length;
        int required = statement.prepared.parameterTypes().length;
        if (supplied != required) {
            return ErrorFields.error("08P01", "bind message supplies " + supplied + " parameters, but prepared statement \""
                    + bind.statement() + "\" requires " + required);
        }
        if (transactionFailed && (supplied != 0 || !exitsTransaction(statement.sql))) {
            return ErrorFields.inFailedTransaction();
        }
        if (portalExists && !bind.portal().isEmpty()) {
            return ErrorFields.error("42P03", "cursor \"" + bind.portal() + "\" already exists");
        }
        int[] types = statement.prepared.parameterTypes();
        byte[][] values = bind.parameterValues();
        for (int i = 0; i < supplied; i++) {
            short format = bind.parameterFormat(i);
            if (format != 0 && format != 1) {
                return ErrorFields.error("22023", "unsupported format code: " + format);
            }
            if (format == 1 && values[i] != null) {
                ErrorFields wrongLength = binaryLength(types[i], values[i].length, i);
                if (wrongLength != null) {
                    return wrongLength;
                }
            }
        }
        if (statement.description() != null && statement.description().columns().isPresent()) {
            return resultFormatCount(bind.resultFormats(), statement.description().columns().get().length);
        }
        return null;
    }

    /**
     * A binary value of a fixed-size type whose length is not that size, which PostgreSQL's receive
     * function refuses at Bind: too short, {@code insufficient data left in message} (08P01); too
     * long, {@code incorrect binary data format in bind parameter n} (22P03). Other types' values are
     * read by the data source when the statement runs.
     */
    private static ErrorFields binaryLength(int type, int length, int index) {
        int size = switch (type) {
            case TypeOids.BOOL -> 1;
            case TypeOids.INT2 -> 2;
            case TypeOids.INT4, TypeOids.OID, TypeOids.FLOAT4 -> 4;
            case TypeOids.INT8, TypeOids.FLOAT8 -> 8;
            default -> -1;
        };
        if (size < 0 || length == size) {
            return null;
        }
        return length < size ? ErrorFields.error("08P01", length == 0 ? "no data left in message" : "insufficient data left in message")
                : ErrorFields.error("22P03", "incorrect binary data format in bind parameter " + (index + 1));
    }

    /** COMMIT, END, ROLLBACK or ABORT: what PostgreSQL still runs in a failed transaction block. */
    static boolean exitsTransaction(String sql) {
        for (String keyword : TRANSACTION_EXITS) {
            if (ParameterCounter.startsWithKeyword(sql, keyword)) {
                return true;
            }
        }
        return false;
    }

    /**
     * More than one result format, and not one per column: refused at Bind when the statement's
     * columns are known then, else once they are (its first Describe or Execute).
     */
    static ErrorFields resultFormatCount(short[] resultFormats, int columns) {
        if (resultFormats.length > 1 && resultFormats.length != columns) {
            return ErrorFields.error("08P01", "bind message has " + resultFormats.length + " result formats but query has "
                    + columns + " columns");
        }
        return null;
    }

    /** 22023 for the first column whose result format is neither 0 nor 1, or null. */
    static ErrorFields resultFormats(short[] requested, short[] perColumn) {
        if (requested.length == 0) {
            return null;
        }
        for (short each : perColumn) {
            if (each != 0 && each != 1) {
                return ErrorFields.error("22023", "unsupported format code: " + each);
            }
        }
        return null;
    }
}
