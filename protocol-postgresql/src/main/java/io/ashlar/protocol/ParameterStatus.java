package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Tells the client the value of a reported run-time parameter ({@code server_version},
 * {@code client_encoding}, {@code DateStyle}, {@code TimeZone}, {@code integer_datetimes},
 * {@code standard_conforming_strings}, ...), after authentication and whenever one changes.
 *
 * @param name the parameter
 * @param value its current value
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-ASYNC">Asynchronous Operations</a>
 */
public record ParameterStatus(String name, String value) implements BackendMessage {

    public static final byte TYPE = 'S';

    public ParameterStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, name, value);
    }

    /** Writes a ParameterStatus without a message object. */
    public static void encode(ByteBuf out, String name, String value) {
        encode(out, name, value, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        encode(out, name, value, text);
    }

    /** Writes a ParameterStatus without a message object, its value in {@code text} (an application_name may be any text). */
    public static void encode(ByteBuf out, String name, String value, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, name);
        Wire.writeCString(out, value, text);
        Wire.end(out, start);
    }

    public static ParameterStatus decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'S') + in.readerIndex();
        ParameterStatus result = new ParameterStatus(Wire.readCString(in), Wire.readCString(in));
        Wire.expectEnd(in, end);
        return result;
    }
}
