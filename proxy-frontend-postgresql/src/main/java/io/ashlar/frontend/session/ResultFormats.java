package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.types.BinaryEncoders;
import io.ashlar.merge.value.TypeOids;
import io.ashlar.frontend.types.ValueEncoder;

/**
 * The formats a client asked for its result columns in (a Bind's result format codes, a BINARY
 * cursor), as what writes each column: text goes out as the backend sent it, binary through the
 * encoder of the column's type, chosen once per Execute and not per row.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES">Formats and Format Codes</a>
 */
final class ResultFormats {

    private ResultFormats() {
    }

    /**
     * The client's result format codes to ask the backend for, so that its rows go out as the
     * backend sent them (binary for any type the backend can send in binary); null when text serves
     * (no column asked for in binary) or when a code is neither 0 nor 1 (PostgreSQL fails such a
     * portal at its first row, which the proxy does itself: {@link BindChecks#resultFormats}).
     */
    static short[] forBackend(short[] codes) {
        boolean binary = false;
        for (short each : codes) {
            if (each == 1) {
                binary = true;
            } else if (each != 0) {
                return null;
            }
        }
        return binary ? codes : null;
    }

    /**
     * What writes each column of a portal's rows: nothing when the result's rows already carry the
     * client's formats ({@link QueryResult#rowFormats()} is the portal's codes), else
     * {@link #encoders(ColumnDescription[], short[], BackendSession)} for the columns whose rows are
     * not yet in the format asked for (a merge over shards reads some columns in text and passes the
     * others on in the client's formats).
     */
    static ValueEncoder[] encoders(QueryResult result, short[] requested, short[] formats, BackendSession backend)
            throws StatementFailure {
        short[] rows = result.rowFormats();
        if (rows != null && (rows == requested || requested.length == 1 && uniform(rows, requested[0]))) {
            return null;
        }
        if (rows == null || rows.length == 0) {
            return encoders(result.columns(), formats, backend);
        }
        short[] toEncode = formats.clone();
        for (int i = 0; i < toEncode.length; i++) {
            short sent = rows.length == 1 ? rows[0] : i < rows.length ? rows[i] : 0;
            if (sent == toEncode[i]) {
                toEncode[i] = 0;
            }
        }
        return encoders(result.columns(), toEncode, backend);
    }

    /** Whether every code is {@code code} (one code given for all columns, the rows sent with it per column). */
    private static boolean uniform(short[] codes, short code) {
        for (short each : codes) {
            if (each != code) {
                return false;
            }
        }
        return true;
    }

    /**
     * Binary encoders per column (null entries for text; null when all are text). A binary format
     * the proxy cannot produce fails, naming the column; codes other than 0 and 1 are written as
     * text here: the caller refuses them when a row is sent ({@link BindChecks#resultFormats}).
     */
    static ValueEncoder[] encoders(ColumnDescription[] columns, short[] formats, BackendSession backend) throws StatementFailure {
        ValueEncoder[] result = null;
        io.ashlar.backend.execute.ClientEncoding encoding = backend.clientEncoding();
        for (int i = 0; i < formats.length; i++) {
            if (formats[i] == 1) {
                int type = columns[i].typeOid();
                if (type == TypeOids.INTERVAL || type == TypeOids.INTERVAL_ARRAY) {
                    String style = backend.reportedValue("IntervalStyle");
                    if (style != null && !style.equals("postgres")) {
                        throw new StatementFailure(ErrorFields.error("0A000", "binary output of intervals needs IntervalStyle"
                                + " postgres in Ashlar (column \"" + columns[i].name() + "\"; the session has " + style + ")",
                                "Ask for this column in text format, or SET IntervalStyle TO postgres."));
                    }
                }
                if (BinaryEncoders.readsDateStyle(type) && !backend.isoDates()) {
                    // The shards' text is in the session's DateStyle; the encoders read ISO's.
                    throw new StatementFailure(ErrorFields.error("0A000", "binary output of dates and timestamps merged"
                            + " across shards needs DateStyle ISO in Ashlar (column \"" + columns[i].name() + "\"; the session"
                            + " has " + backend.reportedValue("DateStyle") + ")",
                            "Ask for this column in text format, or SET DateStyle TO ISO."));
                }
                if ((type == TypeOids.FLOAT4 || type == TypeOids.FLOAT8 || type == TypeOids.FLOAT4_ARRAY
                        || type == TypeOids.FLOAT8_ARRAY) && !backend.shortestFloats()) {
                    // The shards' text is rounded to extra_float_digits: encoded from it, the binary value would not be theirs.
                    throw new StatementFailure(ErrorFields.error("0A000", "binary output of floats merged across shards needs"
                            + " extra_float_digits 1 or more in Ashlar (column \"" + columns[i].name() + "\")",
                            "Ask for this column in text format, or SET extra_float_digits TO 1."));
                }
                ValueEncoder encoder = encoder(type, backend, 0);
                if (encoder != null && encoding != null && !encoding.asciiSafe() && BinaryEncoders.splitsText(encoder)) {
                    throw new StatementFailure(ErrorFields.error("0A000", "binary output of arrays and composite values merged"
                            + " across shards is not supported by Ashlar in client_encoding " + encoding.name() + " (column \""
                            + columns[i].name() + "\"): its characters may hold bytes that read as delimiters",
                            "Ask for this column in text format."));
                }
                if (encoder == null) {
                    throw new StatementFailure(ErrorFields.error("0A000", "binary output format is not supported by Ashlar for type oid "
                            + columns[i].typeOid() + " (column \"" + columns[i].name() + "\")",
                            "Ask for this column in text format."));
                }
                if (result == null) {
                    result = new ValueEncoder[formats.length];
                }
                result[i] = encoder;
            }
        }
        return result;
    }

    /** Composites within composites deeper than this are refused (a type cannot contain itself, but the catalog could change). */
    private static final int MAX_NESTING = 16;

    /**
     * The binary encoder of a result type: the proxy's own for built-in types, the user's enums and composite types
     * (from their fields' encoders, as the session's catalog describes them) and arrays of those; null for a type it
     * cannot write, or a composite one of whose fields it cannot (a float, interval or date field too, unless the
     * session's settings make their text exact or ISO, as for columns).
     */
    private static ValueEncoder encoder(int type, BackendSession backend, int depth) {
        ValueEncoder result = BinaryEncoders.find(type).orElse(null);
        if (result != null || depth > MAX_NESTING) {
            return result;
        }
        int userEnum = backend.userEnum(type);
        if (userEnum != 0) {
            return userEnum > 0 ? BinaryEncoders.enumLabel(userEnum) : BinaryEncoders.enumArray(type, -userEnum);
        }
        int composite = backend.compositeOfArray(type);
        if (composite != 0) {
            ValueEncoder element = encoder(composite, backend, depth + 1);
            return element == null ? null : BinaryEncoders.array(type, element);
        }
        int[] fieldTypes = backend.compositeFields(type);
        if (fieldTypes == null) {
            return null;
        }
        ValueEncoder[] fields = new ValueEncoder[fieldTypes.length];
        for (int i = 0; i < fieldTypes.length; i++) {
            int field = fieldTypes[i];
            boolean inexact = (field == TypeOids.FLOAT4 || field == TypeOids.FLOAT8 || field == TypeOids.FLOAT4_ARRAY
                    || field == TypeOids.FLOAT8_ARRAY) && !backend.shortestFloats()
                    || (field == TypeOids.INTERVAL || field == TypeOids.INTERVAL_ARRAY)
                    && !"postgres".equals(backend.reportedValue("IntervalStyle")) && backend.reportedValue("IntervalStyle") != null
                    || BinaryEncoders.readsDateStyle(field) && !backend.isoDates();
            fields[i] = inexact ? null : encoder(field, backend, depth + 1);
            if (fields[i] == null) {
                return null;
            }
        }
        return BinaryEncoders.composite(type, fields);
    }
}
