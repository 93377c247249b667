package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The legacy fast-path function call. The proxy cannot route it (no SQL to look at), so only the
 * function OID is decoded, enough to answer with an error naming it; the rest of the frame is
 * skipped unread.
 *
 * @param functionOid the OID of the function to call
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-FUNCTION-CALL">Function Call</a>
 */
public record FunctionCall(int functionOid) implements FrontendMessage {

    public static final byte TYPE = 'F';

    /** Writes a call with no arguments and a text result. */
    @Override
    public void encode(ByteBuf out) {
        int start = Wire.begin(out, TYPE);
        out.writeInt(functionOid);
        out.writeShort(0);
        out.writeShort(0);
        out.writeShort(0);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        int oid = body.readInt32();
        body.skipRemaining();
        return body.finish(new FunctionCall(oid));
    }
}
