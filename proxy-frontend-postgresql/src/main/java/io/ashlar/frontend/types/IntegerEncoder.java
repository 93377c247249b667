package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * The integer types and {@code oid}: decimal text to a big-endian two's-complement integer of the
 * type's width ({@code int2send}, {@code int4send}, {@code int8send}; {@code oidsend} sends the
 * unsigned 32-bit value). See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-INT">Integer
 * Types</a>.
 */
final class IntegerEncoder implements ValueEncoder {

    static final IntegerEncoder INT2 = new IntegerEncoder(TypeOids.INT2, "smallint", Short.BYTES,
            Short.MIN_VALUE, Short.MAX_VALUE);
    static final IntegerEncoder INT4 = new IntegerEncoder(TypeOids.INT4, "integer", Integer.BYTES,
            Integer.MIN_VALUE, Integer.MAX_VALUE);
    static final IntegerEncoder INT8 = new IntegerEncoder(TypeOids.INT8, "bigint", Long.BYTES,
            Long.MIN_VALUE, Long.MAX_VALUE);
    static final IntegerEncoder OID = new IntegerEncoder(TypeOids.OID, "oid", Integer.BYTES,
            0, 0xFFFF_FFFFL);

    private final int typeOid;
    private final String typeName;
    private final int width;
    private final long min;
    private final long max;

    private IntegerEncoder(int typeOid, String typeName, int width, long min, long max) {
        this.typeOid = typeOid;
        this.typeName = typeName;
        this.width = width;
        this.min = min;
        this.max = max;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        long value = AsciiText.parseLong(text, offset, offset + length, typeName);
        if (value < min || value > max) {
            throw AsciiText.malformed(typeName, text, offset, offset + length);
        }
        switch (width) {
            case Short.BYTES -> out.writeShort((int) value);
            case Integer.BYTES -> out.writeInt((int) value);
            default -> out.writeLong(value);
        }
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(width);
        write(text, offset, length, out);
    }
}
