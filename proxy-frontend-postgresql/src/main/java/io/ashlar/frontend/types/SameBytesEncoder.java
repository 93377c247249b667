package io.ashlar.frontend.types;

import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * The types whose send function writes the same bytes as their output function: {@code text},
 * {@code varchar}, {@code bpchar} (blank padding included in both), {@code name} and {@code json}
 * ({@code textsend}, {@code namesend}, {@code json_send} all end in {@code pq_sendtext} of the
 * output text). See
 * <a href="https://www.postgresql.org/docs/current/datatype-character.html">Character Types</a>.
 */
final class SameBytesEncoder implements ValueEncoder {

    static final SameBytesEncoder TEXT = new SameBytesEncoder(TypeOids.TEXT);
    static final SameBytesEncoder VARCHAR = new SameBytesEncoder(TypeOids.VARCHAR);
    static final SameBytesEncoder BPCHAR = new SameBytesEncoder(TypeOids.BPCHAR);
    static final SameBytesEncoder NAME = new SameBytesEncoder(TypeOids.NAME);
    /** void: its text is empty and so is its binary form (void_send). */
    static final SameBytesEncoder VOID = new SameBytesEncoder(TypeOids.VOID);
    static final SameBytesEncoder JSON = new SameBytesEncoder(TypeOids.JSON);

    private final int typeOid;

    SameBytesEncoder(int typeOid) {
        this.typeOid = typeOid;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeBytes(text, offset, length);
    }

    @Override
    public byte[] toBinary(byte[] text, int offset, int length) {
        byte[] result = new byte[length];
        System.arraycopy(text, offset, result, 0, length);
        return result;
    }
}
