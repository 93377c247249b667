package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The server is ready for a new query cycle; carries the transaction status. Three pre-encoded
 * instances, one per status.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-READYFORQUERY">ReadyForQuery</a>
 */
public final class ReadyForQuery implements BackendMessage {

    public static final byte TYPE = 'Z';

    /** Not in a transaction block. */
    public static final ReadyForQuery IDLE = new ReadyForQuery((byte) 'I');

    /** In a transaction block. */
    public static final ReadyForQuery IN_TRANSACTION = new ReadyForQuery((byte) 'T');

    /** In a failed transaction block: queries are rejected until the block ends. */
    public static final ReadyForQuery FAILED_TRANSACTION = new ReadyForQuery((byte) 'E');

    private final byte status;
    private final byte[] bytes;

    private ReadyForQuery(byte status) {
        this.status = status;
        this.bytes = Wire.fixed('Z', status);
    }

    /** The instance for a status byte {@code I}, {@code T} or {@code E}. */
    public static ReadyForQuery of(char status) {
        return switch (status) {
            case 'I' -> IDLE;
            case 'T' -> IN_TRANSACTION;
            case 'E' -> FAILED_TRANSACTION;
            default -> throw new IllegalArgumentException("transaction status must be I, T or E: " + status);
        };
    }

    public char status() {
        return (char) status;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(bytes);
    }

    public static ReadyForQuery decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'Z') + in.readerIndex();
        ReadyForQuery result = of((char) in.readByte());
        Wire.expectEnd(in, end);
        return result;
    }

    @Override
    public String toString() {
        return "ReadyForQuery[" + (char) status + "]";
    }
}
