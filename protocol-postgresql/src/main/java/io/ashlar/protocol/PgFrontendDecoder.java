package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Turns a client's bytes into {@link FrontendMessage} values, one per frame, checking every
 * length before anything is allocated. Two stages, as in PostgreSQL's
 * {@code ProcessStartupPacket} and {@code SocketBackend}:
 * <ul>
 * <li>{@link State#STARTUP}: packets with no type byte, an Int32 length counting itself and at
 * most {@value #MAX_STARTUP_PACKET_LENGTH} bytes, then an Int32 code: SSLRequest and
 * GSSENCRequest (each allowed once; the client then sends another packet), CancelRequest, or a
 * protocol version. Any 3.x is accepted (a minor above 0 is negotiated down to 3.0 by the
 * session); 3.50 and 3.51 mark an openGauss client; 1.x and 2.x are refused in their own error
 * format (pgjdbc 9.3 still speaks 2.0 when told to).</li>
 * <li>{@link State#MESSAGES}: Byte1 type, Int32 length counting itself, capped per type like
 * PostgreSQL ({@value #PQ_SMALL_MESSAGE_LIMIT} for small messages,
 * {@value #PQ_LARGE_MESSAGE_LIMIT} for Query, Parse, Bind, CopyData, FunctionCall and
 * openGauss's BatchBind, {@value #PG_MAX_AUTH_TOKEN_LENGTH} for password/SASL messages).</li>
 * </ul>
 * A frame that is not complete yet is left in the buffer ("need more bytes"). Invalid input
 * becomes one {@link FrontendMessage.Malformed} value, never an exception. Broken framing (a bad
 * startup packet, an unknown type byte, a length below 4 or over the type's cap) is fatal: the
 * decoder then discards everything that follows ({@link State#DISCARD}) and the session answers
 * FATAL and closes. A whole frame whose body does not read is a Malformed of that message's type
 * and decoding goes on with the next frame, as PostgreSQL raises an ERROR for it and reads on. A
 * CancelRequest also ends decoding: the connection carries nothing else.
 *
 * <p>A frame over {@value MessageMemory#COUNTED_FROM} bytes is counted against the proxy's
 * {@link MessageMemory} from its header on; one that does not fit is not kept: its bytes are
 * dropped as they come ({@link State#SKIP}) and it becomes a {@link FrontendMessage.TooLarge}. One
 * that fits is received into a buffer of its own size, allocated once.
 *
 * <p>One instance per channel (not {@code @Sharable}).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-MESSAGE-CONCEPTS">Messaging Overview</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">Start-up</a>
 */
public final class PgFrontendDecoder extends ByteToMessageDecoder {

    /** PostgreSQL's {@code MAX_STARTUP_PACKET_LENGTH}. */
    public static final int MAX_STARTUP_PACKET_LENGTH = 10000;

    /** PostgreSQL's {@code PQ_SMALL_MESSAGE_LIMIT}. */
    public static final int PQ_SMALL_MESSAGE_LIMIT = 10000;

    /** PostgreSQL's {@code PQ_LARGE_MESSAGE_LIMIT} (1 GB - 1). */
    public static final int PQ_LARGE_MESSAGE_LIMIT = 0x3fffffff;

    /** PostgreSQL's {@code PG_MAX_AUTH_TOKEN_LENGTH}, the cap on password and SASL messages. */
    public static final int PG_MAX_AUTH_TOKEN_LENGTH = 65535;

    /** What the decoder expects next. */
    public enum State {
        /** Startup packets: no type byte. */
        STARTUP,
        /** Typed messages, after a StartupMessage. */
        MESSAGES,
        /** After broken framing or a CancelRequest: every byte is dropped. */
        DISCARD,
        /** The body of a message too large to keep is being dropped; then typed messages again. */
        SKIP
    }

    private static final int TYPED_HEADER = 5;

    private final FrameReader reader = new FrameReader();
    private final MessageMemory.Client memory;
    private State state = State.STARTUP;
    /** Logged in: a PasswordMessage is no longer a valid message type. */
    private boolean authenticated;
    /** The size of the counted frame being received (its bytes are reserved), 0 when none. */
    private int countedFrame;
    /** {@link State#SKIP}: bytes of the refused message still to drop, and what it becomes then. */
    private long skipLeft;
    private FrontendMessage.TooLarge refused;
    private ClientDialect dialect = ClientDialect.POSTGRESQL;
    private boolean sslRequested;
    private boolean gssRequested;

    /** A decoder waiting for the first startup packet, with no limit on messages but PostgreSQL's. */
    public PgFrontendDecoder() {
        this(MessageMemory.unlimited().client());
    }

    /** A decoder waiting for the first startup packet, counting large messages in {@code memory}. */
    public PgFrontendDecoder(MessageMemory.Client memory) {
        this.memory = memory;
        setCumulator(this::cumulate);
    }

    /** A decoder already past startup, for tests of typed messages. */
    PgFrontendDecoder(State state, ClientDialect dialect) {
        this(state, dialect, MessageMemory.unlimited().client());
    }

    /** A decoder already past startup, counting large messages in {@code memory}, for tests. */
    PgFrontendDecoder(State state, ClientDialect dialect, MessageMemory.Client memory) {
        this(memory);
        this.state = state;
        this.dialect = dialect;
    }

    /** Bytes received but not decoded yet (an incomplete frame). */
    public int bufferedBytes() {
        return actualReadableBytes();
    }

    /** The capacity of the buffer holding what is not decoded yet (0 when there is none), for tests. */
    int bufferCapacity() {
        return internalBuffer().capacity();
    }

    public State state() {
        return state;
    }

    /** The client's dialect, known once its StartupMessage is decoded (PostgreSQL before). */
    public ClientDialect dialect() {
        return dialect;
    }

    /**
     * The charset the strings of messages are read in from now on (UTF-8 until told otherwise). A
     * relayed session, which passes a client's text to the backend without reading it, reads it
     * as ISO-8859-1 (one char per byte) and writes it so: the bytes go on as the client sent them
     * whatever its client_encoding, and PostgreSQL judges them, as it judges a direct client's.
     */
    public void textCharset(java.nio.charset.Charset charset) {
        reader.text(charset, charset == java.nio.charset.StandardCharsets.UTF_8 ? "UTF8" : charset.name());
    }

    /**
     * As {@link #textCharset(java.nio.charset.Charset)}, with PostgreSQL's name of the encoding ({@code WIN1252}), which
     * the error of bytes that are not text in it names (22021, as PostgreSQL's).
     */
    public void textCharset(java.nio.charset.Charset charset, String name) {
        reader.text(charset, name);
    }

    /**
     * The client's TLS handshake follows: after it, a GSSENCRequest is refused as PostgreSQL
     * refuses it (an SSLRequest already is: one per connection).
     */
    public void encryptionStarted() {
        sslRequested = true;
        gssRequested = true;
    }

    /**
     * Drops the bytes received and not decoded yet, and every byte after them: what came in the
     * clear behind an SSLRequest, which a man in the middle may have put there.
     */
    public void discardBuffered() {
        ByteBuf buffered = internalBuffer();
        buffered.skipBytes(buffered.readableBytes());
        state = State.DISCARD;
    }

    /**
     * The client logged in: from now on a PasswordMessage is an invalid message type, as in
     * PostgreSQL, whose backend only reads one during authentication.
     */
    public void authenticated() {
        authenticated = true;
    }

    /** This connection's account of large messages: the session says when it has taken one. */
    public MessageMemory.Client memory() {
        return memory;
    }

    public boolean isOpenGauss() {
        return dialect.isOpenGauss();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case STARTUP -> decodeStartup(in, out);
            case MESSAGES -> decodeMessage(in, out);
            case DISCARD -> in.skipBytes(in.readableBytes());
            case SKIP -> skip(in, out);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        memory.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        memory.close();
        super.channelInactive(ctx);
    }

    private void decodeStartup(ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 4) {
            return;
        }
        int start = in.readerIndex();
        int length = in.getInt(start);
        if (length < 8 || length > MAX_STARTUP_PACKET_LENGTH) {
            reject(in, out, new FrontendMessage.Malformed("invalid length of startup packet"));
            return;
        }
        if (in.readableBytes() < length) {
            return;
        }
        int code = in.getInt(start + 4);
        if (code == SSLRequest.CODE && !sslRequested) {
            sslRequested = true;
            emitNegotiation(in, out, length, SSLRequest.INSTANCE);
        } else if (code == GSSENCRequest.CODE && !gssRequested) {
            gssRequested = true;
            emitNegotiation(in, out, length, GSSENCRequest.INSTANCE);
        } else if (code == CancelRequest.CODE) {
            if (length != CancelRequest.LENGTH) {
                reject(in, out, new FrontendMessage.Malformed("invalid length of cancel request packet"));
                return;
            }
            CancelRequest cancel = new CancelRequest(in.getInt(start + 8), in.getInt(start + 12));
            in.readerIndex(start + length);
            state = State.DISCARD;
            out.add(cancel);
        } else if (code >>> 16 != 3) {
            reject(in, out, new FrontendMessage.Malformed("unsupported frontend protocol " + (code >>> 16) + "."
                    + (code & 0xffff) + ": server supports 3.0 to 3.0",
                    FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED, code >>> 16 < 3));
        } else {
            reader.reset(in, start + 8, start + length);
            FrontendMessage message = StartupMessage.decodeBody(reader, code);
            in.readerIndex(start + length);
            if (message instanceof FrontendMessage.Malformed malformed) {
                reject(in, out, malformed);
                return;
            }
            dialect = ClientDialect.of(code);
            state = State.MESSAGES;
            out.add(message);
        }
    }

    private void emitNegotiation(ByteBuf in, List<Object> out, int length, FrontendMessage request) {
        if (length != 8) {
            reject(in, out, new FrontendMessage.Malformed("invalid length of startup packet"));
            return;
        }
        in.skipBytes(length);
        out.add(request);
    }

    private void decodeMessage(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        byte type = in.getByte(start);
        int limit = limitFor(type);
        if (limit == 0) {
            reject(in, out, new FrontendMessage.Malformed("invalid frontend message type " + (type & 0xff)));
            return;
        }
        if (in.readableBytes() < TYPED_HEADER) {
            return;
        }
        int length = in.getInt(start + 1);
        if (length < 4 || length > limit) {
            // PostgreSQL logs this (COMMERROR) and closes without a word; the client is told here.
            reject(in, out, new FrontendMessage.Malformed("invalid message length"));
            return;
        }
        int frame = 1 + length;
        if (frame > MessageMemory.COUNTED_FROM && countedFrame == 0 && !admit(type, length, in, out)) {
            return;
        }
        if (in.readableBytes() < frame) {
            return;
        }
        reader.reset(in, start + TYPED_HEADER, start + frame);
        FrontendMessage message = decodeBody(type, reader);
        if (message instanceof FrontendMessage.Malformed malformed) {
            message = FrontendMessage.Malformed.body(type, malformed.reason(), malformed.sqlState(),
                    ByteBufUtil.getBytes(in, start, frame));
        }
        in.readerIndex(start + frame);
        if (countedFrame != 0) {
            countedFrame = 0;
            memory.decoded(message);
        }
        out.add(message);
    }

    /**
     * A large frame's header arrived: its bytes are reserved, or it is refused and its bytes are
     * dropped as they come. False when refused.
     */
    private boolean admit(byte type, int length, ByteBuf in, List<Object> out) {
        FrontendMessage.TooLarge refusal = memory.reserveArriving(type, length);
        if (refusal == null) {
            countedFrame = 1 + length;
            return true;
        }
        refused = refusal;
        skipLeft = 1L + length;
        state = State.SKIP;
        skip(in, out);
        return false;
    }

    private void skip(ByteBuf in, List<Object> out) {
        int dropped = (int) Math.min(in.readableBytes(), skipLeft);
        in.skipBytes(dropped);
        skipLeft -= dropped;
        if (skipLeft == 0) {
            state = State.MESSAGES;
            out.add(refused);
            refused = null;
        }
    }

    /**
     * Netty's merging cumulator, but a counted frame (whose size the header told) is received
     * into one buffer of its size, allocated once: growing a buffer step by step would copy the
     * message over and over and hold two copies at each step. A large buffer left with a few bytes
     * of the next message is swapped for a small one, so that it does not stay held.
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        int readable = cumulation.readableBytes();
        int incoming = in.readableBytes();
        // While a counted frame arrives, the cumulation starts at its first byte (nothing before it is left).
        boolean growsForFrame = countedFrame > readable && cumulation.writerIndex() + incoming > cumulation.capacity();
        boolean keptTooLarge = countedFrame == 0 && cumulation.capacity() > 8 * MessageMemory.COUNTED_FROM
                && readable + incoming <= MessageMemory.COUNTED_FROM;
        if (!growsForFrame && !keptTooLarge) {
            return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        try {
            ByteBuf result = alloc.buffer(Math.max(readable + incoming, growsForFrame ? countedFrame : 0));
            ByteBuf toRelease = result;
            try {
                result.writeBytes(cumulation, cumulation.readerIndex(), readable).writeBytes(in, in.readerIndex(), incoming);
                toRelease = cumulation;
                return result;
            } finally {
                toRelease.release();
            }
        } finally {
            in.release();
        }
    }

    private int limitFor(byte type) {
        return switch (type) {
            case Query.TYPE, Parse.TYPE, Bind.TYPE, CopyData.TYPE, FunctionCall.TYPE -> PQ_LARGE_MESSAGE_LIMIT;
            case BatchBind.TYPE -> dialect.isOpenGauss() ? PQ_LARGE_MESSAGE_LIMIT : 0;
            case PasswordMessage.TYPE -> authenticated ? 0 : PG_MAX_AUTH_TOKEN_LENGTH;
            case Describe.TYPE, Execute.TYPE, Close.TYPE, Sync.TYPE, Flush.TYPE, Terminate.TYPE, CopyDone.TYPE,
                 CopyFail.TYPE -> PQ_SMALL_MESSAGE_LIMIT;
            default -> 0;
        };
    }

    private static FrontendMessage decodeBody(byte type, FrameReader body) {
        return switch (type) {
            case Query.TYPE -> Query.decodeBody(body);
            case Parse.TYPE -> Parse.decodeBody(body);
            case Bind.TYPE -> Bind.decodeBody(body);
            case Describe.TYPE -> Describe.decodeBody(body);
            case Execute.TYPE -> Execute.decodeBody(body);
            case Close.TYPE -> Close.decodeBody(body);
            case Sync.TYPE -> Sync.decodeBody(body);
            case Flush.TYPE -> Flush.decodeBody(body);
            case Terminate.TYPE -> Terminate.decodeBody(body);
            case PasswordMessage.TYPE -> PasswordMessage.decodeBody(body);
            case CopyData.TYPE -> CopyData.decodeBody(body);
            case CopyDone.TYPE -> CopyDone.decodeBody(body);
            case CopyFail.TYPE -> CopyFail.decodeBody(body);
            case FunctionCall.TYPE -> FunctionCall.decodeBody(body);
            case BatchBind.TYPE -> BatchBind.decodeBody(body);
            default -> new FrontendMessage.Malformed("invalid frontend message type " + (type & 0xff));
        };
    }

    private void reject(ByteBuf in, List<Object> out, FrontendMessage.Malformed malformed) {
        in.skipBytes(in.readableBytes());
        state = State.DISCARD;
        out.add(malformed);
    }
}
