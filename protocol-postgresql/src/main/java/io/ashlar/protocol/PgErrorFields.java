package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The fields of an {@link ErrorResponse} or {@link NoticeResponse}: (code, value) pairs in wire
 * order. Codes the proxy does not know are kept where they were, so that a backend's error
 * reaches the client exactly as the backend sent it. Immutable.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-error-fields.html">Error and Notice Message Fields</a>
 */
public final class PgErrorFields {

    public static final byte SEVERITY = 'S';
    public static final byte SEVERITY_NON_LOCALIZED = 'V';
    public static final byte SQLSTATE = 'C';
    public static final byte MESSAGE = 'M';
    public static final byte DETAIL = 'D';
    public static final byte HINT = 'H';
    public static final byte POSITION = 'P';
    public static final byte INTERNAL_POSITION = 'p';
    public static final byte INTERNAL_QUERY = 'q';
    public static final byte WHERE = 'W';
    public static final byte SCHEMA = 's';
    public static final byte TABLE = 't';
    public static final byte COLUMN = 'c';
    public static final byte DATA_TYPE = 'd';
    public static final byte CONSTRAINT = 'n';
    public static final byte FILE = 'F';
    public static final byte LINE = 'L';
    public static final byte ROUTINE = 'R';

    public static final String ERROR = "ERROR";
    public static final String FATAL = "FATAL";
    public static final String WARNING = "WARNING";
    public static final String NOTICE = "NOTICE";

    private final byte[] codes;
    private final String[] values;
    private final int hash;

    private PgErrorFields(byte[] codes, String[] values) {
        this.codes = codes;
        this.values = values;
        this.hash = 31 * Arrays.hashCode(codes) + Arrays.hashCode(values);
    }

    /**
     * Fields made by the proxy: severity in both S and V (as PostgreSQL 9.6+ sends it), SQLSTATE,
     * message.
     */
    public static PgErrorFields of(String severity, String sqlState, String message) {
        return new PgErrorFields(new byte[] {SEVERITY, SEVERITY_NON_LOCALIZED, SQLSTATE, MESSAGE},
                new String[] {severity, severity, sqlState, message});
    }

    /** Fields in the given order, e.g. a backend's, copied. A code of 0 is not allowed (it ends the list). */
    public static PgErrorFields of(byte[] codes, String[] values) {
        if (codes.length != values.length) {
            throw new IllegalArgumentException("codes and values differ in length");
        }
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] == 0) {
                throw new IllegalArgumentException("field code 0");
            }
            Objects.requireNonNull(values[i], "value");
        }
        return new PgErrorFields(codes.clone(), values.clone());
    }

    /** A builder starting with severity (S and V), SQLSTATE and message. */
    public static Builder builder(String severity, String sqlState, String message) {
        return new Builder().add(SEVERITY, severity).add(SEVERITY_NON_LOCALIZED, severity).add(SQLSTATE, sqlState)
                .add(MESSAGE, message);
    }

    public int size() {
        return codes.length;
    }

    public byte code(int index) {
        return codes[index];
    }

    public String value(int index) {
        return values[index];
    }

    /** The first field with this code. */
    public Optional<String> get(byte code) {
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] == code) {
                return Optional.of(values[i]);
            }
        }
        return Optional.empty();
    }

    /** The severity (V, else S), or empty text. */
    public String severity() {
        return get(SEVERITY_NON_LOCALIZED).or(() -> get(SEVERITY)).orElse("");
    }

    /** The SQLSTATE, or empty text. */
    public String sqlState() {
        return get(SQLSTATE).orElse("");
    }

    /** The primary message, or empty text. */
    public String message() {
        return get(MESSAGE).orElse("");
    }

    /** Writes the fields, in {@code text}, and the terminating zero byte. */
    void encode(ByteBuf out, java.nio.charset.Charset text) {
        for (int i = 0; i < codes.length; i++) {
            out.writeByte(codes[i]);
            Wire.writeCString(out, values[i], text);
        }
        out.writeByte(0);
    }

    static PgErrorFields decode(ByteBuf in) {
        Builder result = new Builder();
        for (byte code = in.readByte(); code != 0; code = in.readByte()) {
            result.add(code, Wire.readCString(in));
        }
        return result.build();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PgErrorFields that && hash == that.hash && Arrays.equals(codes, that.codes)
                && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder();
        for (int i = 0; i < codes.length; i++) {
            result.append(i == 0 ? "" : " ").append((char) codes[i]).append('=').append(values[i]);
        }
        return result.toString();
    }

    /** Adds fields in order. */
    public static final class Builder {

        private byte[] codes = new byte[8];
        private String[] values = new String[8];
        private int size;

        private Builder() {
        }

        public Builder add(byte code, String value) {
            if (code == 0) {
                throw new IllegalArgumentException("field code 0");
            }
            Objects.requireNonNull(value, "value");
            if (size == codes.length) {
                codes = Arrays.copyOf(codes, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            codes[size] = code;
            values[size] = value;
            size++;
            return this;
        }

        public Builder detail(String value) {
            return add(DETAIL, value);
        }

        public Builder hint(String value) {
            return add(HINT, value);
        }

        /** The 1-based character position in the query string. */
        public Builder position(int value) {
            return add(POSITION, Integer.toString(value));
        }

        public Builder where(String value) {
            return add(WHERE, value);
        }

        public Builder routine(String value) {
            return add(ROUTINE, value);
        }

        public PgErrorFields build() {
            return new PgErrorFields(Arrays.copyOf(codes, size), Arrays.copyOf(values, size));
        }
    }
}
