package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Objects;

/**
 * A statement finished; the tag says what it did ({@code SELECT 3}, {@code INSERT 0 1},
 * {@code UPDATE 2}, {@code BEGIN}). Tags are ASCII and written without an intermediate
 * {@code byte[]}; {@link #encode(ByteBuf, String, long)} also builds the count without a
 * {@code String}.
 *
 * @param tag the command tag
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COMMANDCOMPLETE">CommandComplete</a>
 */
public record CommandComplete(String tag) implements BackendMessage {

    public static final byte TYPE = 'C';

    public CommandComplete {
        Objects.requireNonNull(tag, "tag");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, tag);
    }

    /** Writes a CommandComplete with this tag. */
    public static void encode(ByteBuf out, String tag) {
        out.writeByte(TYPE);
        out.writeInt(4 + tag.length() + 1);
        ByteBufUtil.writeAscii(out, tag);
        out.writeByte(0);
    }

    /** Writes {@code verb + ' ' + rows}, e.g. ({@code "SELECT"}, 3) or ({@code "INSERT 0"}, 1). */
    public static void encode(ByteBuf out, String verb, long rows) {
        int start = Wire.begin(out, TYPE);
        ByteBufUtil.writeAscii(out, verb);
        out.writeByte(' ');
        writeDecimal(out, rows);
        out.writeByte(0);
        Wire.end(out, start);
    }

    private static void writeDecimal(ByteBuf out, long value) {
        if (value < 0) {
            out.writeByte('-');
            if (value == Long.MIN_VALUE) {
                ByteBufUtil.writeAscii(out, "9223372036854775808");
                return;
            }
            value = -value;
        }
        long divisor = 1;
        while (divisor <= value / 10) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            out.writeByte('0' + (int) (value / divisor % 10));
        }
    }

    public static CommandComplete decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'C') + in.readerIndex();
        CommandComplete result = new CommandComplete(Wire.readCString(in));
        Wire.expectEnd(in, end);
        return result;
    }
}
