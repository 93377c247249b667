package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code macaddr} and {@code macaddr8}: {@code macaddr_send} and {@code macaddr8_send} write the
 * 6 or 8 bytes of the address in order. {@code macaddr_out} and {@code macaddr8_out} print every
 * byte as two lower-case hex digits, separated by colons ({@code 08:00:2b:01:02:03}); a
 * {@code macaddr8} made from a 6-byte address is printed with the {@code ff:fe} PostgreSQL put in
 * its middle, so the text always has all 8 bytes. See
 * <a href="https://www.postgresql.org/docs/current/datatype-net-types.html#DATATYPE-MACADDR">macaddr</a>.
 */
final class MacaddrEncoder implements ValueEncoder {

    static final MacaddrEncoder MACADDR = new MacaddrEncoder(TypeOids.MACADDR, 6, "macaddr");
    static final MacaddrEncoder MACADDR8 = new MacaddrEncoder(TypeOids.MACADDR8, 8, "macaddr8");

    /** Two hex digits and a colon per byte, no colon after the last. */
    private static final int CHARS_PER_BYTE = 3;

    private final int typeOid;
    private final int bytes;
    private final String typeName;

    private MacaddrEncoder(int typeOid, int bytes, String typeName) {
        this.typeOid = typeOid;
        this.bytes = bytes;
        this.typeName = typeName;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        if (length != bytes * CHARS_PER_BYTE - 1) {
            throw AsciiText.malformed(typeName, text, offset, offset + length);
        }
        for (int i = 0; i < bytes; i++) {
            int p = offset + i * CHARS_PER_BYTE;
            int high = AsciiText.hexDigit(text[p]);
            int low = AsciiText.hexDigit(text[p + 1]);
            if (high < 0 || low < 0 || i + 1 < bytes && text[p + 2] != ':') {
                throw AsciiText.malformed(typeName, text, offset, offset + length);
            }
            out.writeByte(high << 4 | low);
        }
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(bytes);
        write(text, offset, length, out);
    }
}
