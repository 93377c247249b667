package io.ashlar.backend.pg;

import io.ashlar.backend.session.SessionSettings;
import io.ashlar.protocol.CancelRequest;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.PasswordMessage;
import io.ashlar.protocol.SSLRequest;
import io.ashlar.protocol.StartupMessage;
import io.ashlar.protocol.Terminate;
import io.ashlar.protocol.auth.Crypto;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One native connection to a backend, on one event loop: it starts TLS when the data source asks
 * for it ({@link BackendTls}: an SSLRequest first, then Netty's SslHandler below this decoder),
 * logs in (SCRAM-SHA-256, with channel binding over TLS, MD5 or clear text; openGauss's SHA256
 * and MD5_SHA256 for {@code jdbc:opengauss:} data sources, see {@link OpenGaussLogin}), then hands
 * every message the backend sends to its {@link Receiver}, the session using it,
 * as a frame in the read buffer (no message object, no copy), and writes what the session sends.
 * What it learns on the way it keeps: the transaction status of the last ReadyForQuery, the
 * reported parameters, the key a CancelRequest needs, the session settings it carries, and the
 * statements prepared on it.
 *
 * <p>Everything runs on the connection's event loop; nothing here is thread-safe.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">Start-up</a>
 */
public final class ServerLink extends ByteToMessageDecoder {

    /** What a session does with what the backend sends while it holds the link. */
    public interface Receiver {

        /**
         * One message: its type, and the whole frame (type byte, length, body) at
         * {@code [start, start + length)} of {@code buf}, valid during the call only.
         */
        void message(ServerLink link, byte type, ByteBuf buf, int start, int length);

        /** The end of one read from the socket: what was relayed can be flushed. */
        void readComplete(ServerLink link);

        /** The connection is gone (closed by the backend, a FATAL error, an I/O error). */
        void closed(ServerLink link, String reason);
    }

    /** PostgreSQL's PQ_LARGE_MESSAGE_LIMIT: no backend message is longer. */
    private static final int MAX_MESSAGE_LENGTH = 0x3fffffff;
    /** How many statements a connection keeps prepared for the sessions that use it. */
    public static final int MAX_PREPARED = 256;

    private enum State { CONNECTING, SSL_REQUESTED, TLS_HANDSHAKE, AUTHENTICATING, STARTING, READY, CLOSED }

    /** A login the server refused, with the SQLSTATE of its ErrorResponse (empty: it refused the SSLRequest). */
    static final class LoginRefused extends java.io.IOException {
        private static final long serialVersionUID = 1L;
        final String sqlState;

        LoginRefused(String message, String sqlState) {
            super(message);
            this.sqlState = sqlState;
        }
    }

    private final ConnectSpec spec;
    private final Promise<ServerLink> ready;
    /** Whether this attempt asks for TLS (allow asks only when clear text was refused; prefer asks first). */
    private final boolean requestsTls;
    private Channel channel;
    private State state = State.CONNECTING;
    private SslHandler tls;
    /** tls-server-end-point data of the server's certificate, once TLS is on and binding is wanted; else null. */
    private byte[] bindingData;
    private ScramClient scram;
    /** Whether the login was SCRAM-SHA-256-PLUS and the server proved it (channelBinding=require checks it). */
    private boolean channelBound;
    private int processId;
    private int secretKey;
    private final Map<String, String> parameters = new HashMap<>();
    /** Whether the backend writes text as the proxy reads it: see {@link #plainText()}. */
    private boolean plainText = true;
    /** The charset of the client_encoding the backend last reported: see {@link #textCharset()}. */
    private java.nio.charset.Charset textCharset = StandardCharsets.UTF_8;
    /** The last client_encoding reported that a Java charset reads (what a change to another one is undone to). */
    private String readableEncoding = "UTF8";
    private char status = 'I';
    private Receiver receiver;
    private ByteBuf pending;
    private SessionSettings settings = SessionSettings.EMPTY;
    private String closeReason = "";
    /** Told when the connection is lost in a way that says its data source is in trouble (see {@link #lost}). */
    private LinkPool.LoopPool owner;
    /**
     * The statements prepared here, each with when a statement last used it: a lookup writes one counter, where an
     * access-ordered map relinked its entry (and its neighbours) at every statement; the least recently used is
     * looked for only when the connection is full and parses one more.
     */
    private final Map<PreparedKey, Named> prepared = new HashMap<>();
    /** Counts the uses of {@link #prepared}'s statements (their clock). */
    private long uses;
    private final java.util.ArrayDeque<String> retired = new java.util.ArrayDeque<>(0);
    /** See {@link #cancelPending()}; set by the session's thread or loop, cleared on this link's loop. */
    private volatile boolean cancelPending;
    /** The settings the statements of {@link #prepared} were parsed under. */
    private SessionSettings preparedUnder = SessionSettings.EMPTY;
    private int nextPrepared;
    final long createdNanos = System.nanoTime();
    long idleSinceNanos = createdNanos;
    /** When the connection was made, for SHOW SERVERS. */
    final long createdMillis = System.currentTimeMillis();
    /** Where this pooled connection counts what it does (null: not pooled, the health check's). */
    LinkStats stats;
    /** When the request being answered was sent (0: none is). */
    private long requestStartNanos;
    /** When the transaction being answered began (0: none is open). */
    private long transactionStartNanos;

    private ServerLink(ConnectSpec spec, Promise<ServerLink> ready, boolean requestsTls) {
        this.spec = spec;
        this.ready = ready;
        this.requestsTls = requestsTls;
    }

    /** A statement's name on this connection, and when a statement last used it. */
    private static final class Named {
        final String name;
        long used;

        Named(String name, long used) {
            this.name = name;
            this.used = used;
        }
    }

    /** A statement as prepared on a backend: its text and the parameter types it was parsed with. */
    public record PreparedKey(String sql, int[] types, int hash) {
        public PreparedKey(String sql, int[] types) {
            this(sql, types, 31 * sql.hashCode() + java.util.Arrays.hashCode(types));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PreparedKey k && hash == k.hash && sql.equals(k.sql) && java.util.Arrays.equals(types, k.types);
        }
    }

    /**
     * Connects and logs in on {@code loop}; the future completes once the backend is ready for
     * queries, or fails with the reason (the backend's own error message for a refused login).
     * As pgjdbc does, sslmode=prefer tries once more in clear text when the server refuses the
     * login over TLS with 28000 (pg_hba.conf has no entry for it), and allow tries once more with
     * TLS when it refuses it in clear text; both within the one connect timeout.
     */
    static Promise<ServerLink> connect(EventLoop loop, Class<? extends Channel> channelClass, ConnectSpec spec) {
        Promise<ServerLink> result = loop.newPromise();
        ServerLink[] current = new ServerLink[1];
        BackendTls.Mode mode = spec.tls().mode();
        attempt(loop, channelClass, spec, mode != BackendTls.Mode.DISABLE && mode != BackendTls.Mode.ALLOW, result, current);
        // The timeout counts the time the proxy ran (RunningDeadline): a stall of its own is not the server's silence,
        // and a login timed out makes the data source down for every session.
        RunningDeadline waited = new RunningDeadline(
                java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(spec.connectTimeoutMillis()));
        waited.start(System.nanoTime());
        loop.schedule(new Runnable() {
            @Override
            public void run() {
                if (result.isDone()) {
                    return;
                }
                if (waited.passed(System.nanoTime())) {
                    result.tryFailure(new java.net.ConnectException("timed out after " + spec.connectTimeoutMillis()
                            + " ms connecting to " + spec.host() + ":" + spec.port()));
                    current[0].close();
                } else {
                    loop.schedule(this, waited.stepNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            }
        }, waited.stepNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        return result;
    }

    private static void attempt(EventLoop loop, Class<? extends Channel> channelClass, ConnectSpec spec, boolean requestsTls,
                                Promise<ServerLink> result, ServerLink[] current) {
        Promise<ServerLink> ready = loop.newPromise();
        ServerLink link = new ServerLink(spec, ready, requestsTls);
        current[0] = link;
        ready.addListener(done -> {
            if (done.isSuccess()) {
                if (!result.trySuccess(link)) {
                    link.close(); // it came after the timeout
                }
            } else if (!result.isDone() && triesAgain(spec.tls().mode(), requestsTls, done.cause())) {
                attempt(loop, channelClass, spec, !requestsTls, result, current);
            } else {
                result.tryFailure(done.cause());
            }
        });
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, spec.connectTimeoutMillis())
                .handler(link);
        // Short TCP keepalive, so that a backend whose host is gone (a crash, a cut network) ends its connections in
        // seconds instead of the operating system's two hours. A stopped server process whose kernel still answers
        // TCP is not seen this way: the health check is for that (DataSourceHealth).
        Transport.of(channelClass).keepalive(bootstrap, spec.tcpKeepaliveSeconds());
        bootstrap.connect(spec.host(), spec.port()).addListener((ChannelFutureListener) connected -> {
                    if (!connected.isSuccess()) {
                        ready.tryFailure(connected.cause());
                    }
                });
    }

    /**
     * A link that {@link #connect} did not connect, for tests that write the backend's bytes to it
     * themselves (EmbeddedChannel); it sends its startup packet when its channel becomes active.
     */
    static ServerLink detached(ConnectSpec spec, Promise<ServerLink> ready) {
        return new ServerLink(spec, ready, false);
    }

    /** pgjdbc's fallbacks: prefer goes on in clear text, allow with TLS, when the first way was refused. */
    private static boolean triesAgain(BackendTls.Mode mode, boolean triedTls, Throwable cause) {
        if (!(cause instanceof LoginRefused refused)) {
            return false;
        }
        if (mode == BackendTls.Mode.PREFER && triedTls) {
            return refused.sqlState.equals("28000") || refused.sqlState.isEmpty();
        }
        return mode == BackendTls.Mode.ALLOW && !triedTls && refused.sqlState.equals("28000");
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        track(channel);
    }

    /** Keeps {@code channel} in {@link #OPEN} until it closes. */
    private static void track(Channel channel) {
        OPEN.add(channel);
        channel.closeFuture().addListener(FORGET);
    }

    /**
     * The channel of every backend connection of this process that is not closed yet (cancel requests' too): a proxy
     * that stops closes the ones left on its event loops while the loops still run ({@link #openOn}). Changed per
     * connection opened and closed, never per statement.
     */
    private static final java.util.Set<Channel> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final ChannelFutureListener FORGET = closed -> OPEN.remove(closed.channel());

    /**
     * The backend connections not closed yet whose event loop is one of {@code group}'s. A stop closes them, and
     * waits for their closes, before it stops the loops: under io_uring a loop that stops with a connection still
     * open may end before the close it starts reaches the kernel (the ring is gone by then), and the socket stays
     * open, and the backend with it, until the process exits (ShutdownUnderLoadTest, about one run in twenty).
     */
    public static List<Channel> openOn(io.netty.util.concurrent.EventExecutorGroup group) {
        List<Channel> result = new java.util.ArrayList<>();
        for (Channel each : OPEN) {
            if (each.eventLoop().parent() == group) {
                result.add(each);
            }
        }
        return result;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (requestsTls) {
            state = State.SSL_REQUESTED;
            ByteBuf out = ctx.alloc().buffer(8);
            SSLRequest.INSTANCE.encode(out);
            ctx.writeAndFlush(out);
        } else {
            sendStartup(ctx);
        }
        super.channelActive(ctx);
    }

    private void sendStartup(ChannelHandlerContext ctx) {
        state = State.AUTHENTICATING;
        if (tls != null && spec.tls().channelBinding() != BackendTls.ChannelBinding.DISABLE) {
            bindingData = BackendTls.serverEndPoint(tls);
        }
        ByteBuf out = ctx.alloc().buffer(128);
        new StartupMessage(spec.protocolVersion(), spec.startupParameters(), List.of()).encode(out);
        ctx.writeAndFlush(out);
    }

    /**
     * The server's one-byte answer to the SSLRequest. After 'S' nothing may follow in clear text
     * (CVE-2021-23222: bytes injected there would be read as if they came over TLS).
     */
    private void sslAnswer(ChannelHandlerContext ctx, byte answer, boolean more) {
        BackendTls settings = spec.tls();
        switch (answer) {
            case 'S' -> {
                if (more) {
                    fail("the server sent unencrypted bytes after agreeing to TLS (a man in the middle may have injected them)");
                    return;
                }
                state = State.TLS_HANDSHAKE;
                tls = settings.newHandler(ctx.alloc(), spec.host(), spec.port());
                ctx.pipeline().addFirst("tls", tls);
                tls.handshakeFuture().addListener(done -> {
                    if (!done.isSuccess()) {
                        fail(settings.handshakeFailure(done.cause(), spec.host()));
                    } else if (state == State.TLS_HANDSHAKE) {
                        sendStartup(ctx);
                    }
                });
            }
            case 'N' -> {
                if (settings.mode().requiresTls()) {
                    fail("the server does not support SSL (it answered N to the SSLRequest), and " + settings.modeSetting()
                            + " requires it");
                } else {
                    sendStartup(ctx);
                }
            }
            case 'E' -> {
                // An error unauthenticated and unencrypted: not shown (CVE-2024-10977); prefer reconnects in clear text.
                String reason = "the server does not support SSL (it answered the SSLRequest with an error)";
                if (settings.mode().requiresTls()) {
                    fail(reason + ", and " + settings.modeSetting() + " requires it");
                } else {
                    refused(reason, "");
                }
            }
            default -> fail("invalid answer to the SSLRequest: byte " + (answer & 0xff));
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.SSL_REQUESTED) {
            if (in.isReadable()) {
                sslAnswer(ctx, in.readByte(), in.isReadable());
                if (state != State.TLS_HANDSHAKE && state != State.AUTHENTICATING) {
                    in.skipBytes(in.readableBytes());
                }
            }
            return;
        }
        while (state != State.CLOSED) {
            int readable = in.readableBytes();
            if (readable < 5) {
                return;
            }
            int start = in.readerIndex();
            byte type = in.getByte(start);
            int length = in.getInt(start + 1);
            if (length < 4 || length > MAX_MESSAGE_LENGTH) {
                in.skipBytes(readable);
                fail("invalid message length " + length + " from the backend");
                return;
            }
            if (readable < 1 + length) {
                return;
            }
            in.readerIndex(start + 1 + length);
            if (state == State.READY) {
                message(type, in, start, 1 + length);
            } else {
                startup(type, in, start + 5, start + 1 + length);
            }
        }
    }

    private void message(byte type, ByteBuf in, int start, int length) {
        switch (type) {
            case 'Z' -> {
                status = (char) in.getByte(start + 5);
                if (stats != null) {
                    counted(status);
                }
            }
            case 'S' -> parameter(in, start + 5);
            case 'E' -> {
                if (cancelPending && hasSqlState(in, start + 5, start + length, "57014")) {
                    cancelPending = false; // the cancel landed on the statement it was meant for
                }
                if (closeReason.isEmpty() && fieldIs(in, start + 5, start + length, (byte) 'V', "FATAL")) {
                    // The backend says why it ends the connection (an idle-in-transaction timeout, an
                    // administrator's command): the session that finds it closed is told that.
                    closeReason = "the backend ended the connection: " + errorMessage(in, start + 5, start + length);
                }
            }
            default -> { }
        }
        Receiver current = receiver;
        if (current != null) {
            current.message(this, type, in, start, length);
        } else if (type == 'E') {
            // Nobody holds the link: a FATAL such as an administrator's shutdown; it is done.
            close("the backend ended the connection: " + errorMessage(in, start + 5, start + length));
        }
    }

    /** A ReadyForQuery ends the request (and, at status idle, the transaction) being answered. */
    private void counted(char status) {
        LinkStats to = stats;
        long now = System.nanoTime();
        to.queries++;
        if (requestStartNanos != 0) {
            to.queryNanos += now - requestStartNanos;
            to.queryTimes.record(now - requestStartNanos);
            requestStartNanos = 0;
        }
        if (status == 'I') {
            to.transactions++;
            if (transactionStartNanos != 0) {
                to.transactionNanos += now - transactionStartNanos;
                transactionStartNanos = 0;
            }
        }
    }

    /** Bytes on their way to the backend: the first of a request starts its clock. */
    private void sending(int bytes) {
        LinkStats to = stats;
        if (to == null) {
            return;
        }
        to.bytesSent += bytes;
        if (requestStartNanos == 0) {
            requestStartNanos = System.nanoTime();
            if (transactionStartNanos == 0) {
                transactionStartNanos = requestStartNanos;
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        LinkStats to = stats;
        if (to != null && msg instanceof ByteBuf buf) {
            to.bytesReceived += buf.readableBytes();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        Receiver current = receiver;
        if (current != null && state == State.READY) {
            current.readComplete(this);
        }
        // Not ByteToMessageDecoder's own: having passed on no message, it would read again with
        // auto-read off, and a client that stopped reading would let the backend's rows pile up here.
        discardSomeReadBytes();
        ctx.fireChannelReadComplete();
    }

    private void startup(byte type, ByteBuf in, int body, int end) {
        switch (type) {
            case 'R' -> authentication(in, body, end);
            case 'S' -> parameter(in, body);
            case 'K' -> {
                processId = in.getInt(body);
                secretKey = in.getInt(body + 4);
            }
            case 'Z' -> {
                status = (char) in.getByte(body);
                state = State.READY;
                ready.trySuccess(this);
            }
            case 'E' -> refused(errorMessage(in, body, end), fieldValue(in, body, end, (byte) 'C'));
            default -> { } // NoticeResponse, NegotiateProtocolVersion: nothing to do
        }
    }

    private void authentication(ByteBuf in, int body, int end) {
        int code = in.getInt(body);
        if (spec.openGauss() && code >= OpenGaussLogin.AUTH_SHA256) {
            openGauss(code, in, body, end);
            return;
        }
        switch (code) {
            case 0 -> {
                if (spec.tls().channelBinding() == BackendTls.ChannelBinding.REQUIRE && !channelBound) {
                    fail("channelBinding=require, but the server let the connection in without SCRAM-SHA-256-PLUS");
                    return;
                }
                state = State.STARTING;
            }
            case 3 -> {
                if (unbound("a clear-text password")) {
                    send(new PasswordMessage(cString(spec.password())));
                }
            }
            case 5 -> {
                if (!unbound("MD5")) {
                    return;
                }
                byte[] salt = new byte[4];
                in.getBytes(body + 4, salt);
                String inner = Crypto.md5Hex(spec.password().getBytes(StandardCharsets.UTF_8),
                        spec.user().getBytes(StandardCharsets.UTF_8));
                send(new PasswordMessage(cString("md5" + Crypto.md5Hex(inner.getBytes(StandardCharsets.UTF_8), salt))));
            }
            case 10 -> saslStart(in.toString(body + 4, end - body - 4, StandardCharsets.UTF_8));
            case 11 -> {
                byte[] serverFirst = new byte[end - body - 4];
                in.getBytes(body + 4, serverFirst);
                try {
                    send(new PasswordMessage(scram.answer(serverFirst)));
                } catch (RuntimeException e) {
                    fail(e.getMessage());
                }
            }
            case 12 -> {
                byte[] serverFinal = new byte[end - body - 4];
                in.getBytes(body + 4, serverFinal);
                if (scram == null || !scram.verify(serverFinal)) {
                    fail("the backend's SCRAM signature does not match: it does not know the password");
                    return;
                }
                channelBound = bindingData != null && scram.bindsChannel();
            }
            default -> fail("the backend asks for an authentication method Ashlar does not speak (code " + code + ")");
        }
    }

    /**
     * Starts SCRAM: SCRAM-SHA-256-PLUS over TLS when the server offers it and channelBinding allows
     * it, else SCRAM-SHA-256 (refused under channelBinding=require).
     */
    private void saslStart(String mechanismList) {
        List<String> mechanisms = List.of(mechanismList.split("\0"));
        BackendTls.ChannelBinding binding = spec.tls().channelBinding();
        boolean plusOffered = mechanisms.contains(ScramClient.MECHANISM_PLUS);
        String mechanism;
        String header;
        byte[] data = new byte[0];
        if (tls != null && plusOffered && bindingData != null && binding != BackendTls.ChannelBinding.DISABLE) {
            mechanism = ScramClient.MECHANISM_PLUS;
            header = ScramClient.SERVER_END_POINT;
            data = bindingData;
        } else if (binding == BackendTls.ChannelBinding.REQUIRE) {
            fail("channelBinding=require, but " + (tls == null ? "the connection has no TLS"
                    : !plusOffered ? "the server does not offer SCRAM-SHA-256-PLUS"
                    : "the signature algorithm of the server's certificate names no hash for tls-server-end-point"));
            return;
        } else if (mechanisms.contains(ScramClient.MECHANISM)) {
            mechanism = ScramClient.MECHANISM;
            // 'y': this client could bind but the server offered no PLUS; a server that did offer it
            // (stripped by someone in between) refuses the login.
            header = tls != null && !plusOffered && binding != BackendTls.ChannelBinding.DISABLE
                    ? ScramClient.BINDING_NOT_OFFERED : ScramClient.NO_BINDING;
        } else {
            fail("the backend offers no SASL mechanism Ashlar speaks: " + String.join(" ", mechanisms).trim());
            return;
        }
        scram = new ScramClient(spec.password(), header, data);
        byte[] first = scram.first();
        byte[] name = cString(mechanism);
        ByteBuf message = io.netty.buffer.Unpooled.buffer(name.length + 4 + first.length);
        message.writeBytes(name).writeInt(first.length).writeBytes(first);
        send(new PasswordMessage(io.netty.buffer.ByteBufUtil.getBytes(message)));
    }

    /** Whether a method without channel binding may answer; fails the login when channelBinding=require. */
    private boolean unbound(String method) {
        if (spec.tls().channelBinding() == BackendTls.ChannelBinding.REQUIRE) {
            fail("channelBinding=require, but the server asks for " + method + " authentication, which has no channel binding");
            return false;
        }
        return true;
    }

    /**
     * openGauss's requests, which reuse PostgreSQL's SASL codes: 10 is SHA256, 11 MD5_SHA256, 13
     * SM3. Read as openGauss's JDBC driver reads them: the SHA256 request carries the iteration
     * count under protocol 3.51 only.
     */
    private void openGauss(int code, ByteBuf in, int body, int end) {
        if (!unbound("openGauss's code " + code)) {
            return;
        }
        String password = spec.password();
        switch (code) {
            case OpenGaussLogin.AUTH_SHA256 -> {
                int stored = end - body >= 8 ? in.getInt(body + 4) : -1;
                int at = body + 8;
                if (stored == OpenGaussLogin.STORED_PLAIN || stored == OpenGaussLogin.STORED_SHA256) {
                    boolean hasIterations = spec.protocolVersion() == ClientDialect.PROTOCOL_OPENGAUSS_3_51;
                    int length = OpenGaussLogin.SALT_HEX_LENGTH + OpenGaussLogin.TOKEN_HEX_LENGTH;
                    if (end - at < length + (hasIterations ? 4 : 0)) {
                        fail("malformed SHA256 authentication request from the backend");
                        return;
                    }
                    String salt = in.toString(at, OpenGaussLogin.SALT_HEX_LENGTH, StandardCharsets.US_ASCII);
                    String token = in.toString(at + OpenGaussLogin.SALT_HEX_LENGTH, OpenGaussLogin.TOKEN_HEX_LENGTH,
                            StandardCharsets.US_ASCII);
                    int iterations = hasIterations ? in.getInt(at + length) : OpenGaussLogin.DEFAULT_ITERATIONS;
                    if (!OpenGaussLogin.isHex(salt) || !OpenGaussLogin.isHex(token) || iterations <= 0) {
                        fail("malformed SHA256 authentication request from the backend");
                        return;
                    }
                    send(new PasswordMessage(cString(OpenGaussLogin.sha256(password, salt, token, iterations))));
                } else if (stored == OpenGaussLogin.STORED_MD5 && end - at >= 4) {
                    byte[] salt = new byte[4];
                    in.getBytes(at, salt);
                    send(new PasswordMessage(cString(OpenGaussLogin.sha256OverMd5(spec.user(), password, salt))));
                } else {
                    fail("the backend asks for SHA256 authentication of a password stored as method " + stored
                            + ", which Ashlar does not answer (0 plain, 1 MD5 and 2 SHA256 are answered; 3 is SM3)");
                }
            }
            case OpenGaussLogin.AUTH_MD5_SHA256 -> {
                int at = body + 4;
                if (end - at < OpenGaussLogin.SALT_HEX_LENGTH + 4) {
                    fail("malformed MD5_SHA256 authentication request from the backend");
                    return;
                }
                String salt = in.toString(at, OpenGaussLogin.SALT_HEX_LENGTH, StandardCharsets.US_ASCII);
                if (!OpenGaussLogin.isHex(salt)) {
                    fail("malformed MD5_SHA256 authentication request from the backend");
                    return;
                }
                byte[] md5Salt = new byte[4];
                in.getBytes(at + OpenGaussLogin.SALT_HEX_LENGTH, md5Salt);
                send(new PasswordMessage(cString(OpenGaussLogin.md5OverSha256(password, salt, md5Salt))));
            }
            case OpenGaussLogin.AUTH_SM3 -> fail("the backend asks for openGauss's SM3 authentication, which Ashlar does"
                    + " not speak (the JDK has no SM3): store the user's password as SHA256 (password_encryption_type=2)");
            default -> fail("the backend asks for an openGauss authentication method Ashlar does not speak (code " + code + ")");
        }
    }

    private void send(FrontendMessage message) {
        ByteBuf out = channel.alloc().buffer(64);
        message.encode(out);
        channel.writeAndFlush(out);
    }

    private static byte[] cString(String value) {
        return cString(value.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] cString(byte[] bytes) {
        return java.util.Arrays.copyOf(bytes, bytes.length + 1);
    }

    private void parameter(ByteBuf in, int body) {
        int nameEnd = in.indexOf(body, in.writerIndex(), (byte) 0);
        int valueEnd = in.indexOf(nameEnd + 1, in.writerIndex(), (byte) 0);
        if (nameEnd < 0 || valueEnd < 0) {
            return;
        }
        String name = in.toString(body, nameEnd - body, StandardCharsets.UTF_8);
        parameters.put(name, in.toString(nameEnd + 1, valueEnd - nameEnd - 1, StandardCharsets.UTF_8));
        if (name.equals("client_encoding") || name.equals("standard_conforming_strings")) {
            String encoding = parameters.get("client_encoding");
            String standardStrings = parameters.get("standard_conforming_strings");
            io.ashlar.backend.execute.ClientEncoding known = encoding == null ? io.ashlar.backend.execute.ClientEncoding.UTF8
                    : io.ashlar.backend.execute.ClientEncoding.find(encoding);
            textCharset = known != null ? known.charset() : StandardCharsets.ISO_8859_1;
            if (known != null && known.exact()) {
                readableEncoding = known.name();
            }
            plainText = known != null && known.exact() && (standardStrings == null || standardStrings.equals("on"));
        }
    }

    /** The M field of an ErrorResponse body (with its SQLSTATE), for messages. */
    static String errorMessage(ByteBuf in, int body, int end) {
        String message = "";
        String sqlState = "";
        int at = body;
        while (at < end && in.getByte(at) != 0) {
            byte code = in.getByte(at);
            int stringEnd = in.indexOf(at + 1, end, (byte) 0);
            if (stringEnd < 0) {
                break;
            }
            String value = in.toString(at + 1, stringEnd - at - 1, StandardCharsets.UTF_8);
            if (code == 'M') {
                message = value;
            } else if (code == 'C') {
                sqlState = value;
            }
            at = stringEnd + 1;
        }
        return sqlState.isEmpty() ? message : message + " (SQLSTATE " + sqlState + ")";
    }

    private void fail(String reason) {
        ready.tryFailure(new java.io.IOException(reason));
        close(reason);
    }

    /** The server refused the login (or the SSLRequest): sslmode prefer and allow may try the other way. */
    private void refused(String reason, String sqlState) {
        ready.tryFailure(new LoginRefused(reason, sqlState));
        close(reason);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        boolean wasOpen = state != State.CLOSED;
        if (state == State.READY && closeReason.isEmpty()) {
            // Neither the proxy nor the backend ended it (a FATAL says why): the server's process died, or
            // something between cut the connection.
            closeReason = "the server closed the connection unexpectedly";
            lost(closeReason);
        }
        state = State.CLOSED;
        ready.tryFailure(new java.io.IOException(closeReason.isEmpty()
                ? "the backend closed the connection during login" : closeReason));
        releasePending();
        Receiver current = receiver;
        if (wasOpen && current != null) {
            current.closed(this, closeReason.isEmpty() ? "the backend closed the connection" : closeReason);
        }
        super.channelInactive(ctx);
    }

    private static final String HEAP_RAN_OUT = "the proxy's heap ran out while reading from the backend";

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Where the heap ran out is chance; the statement holding it is failed next (MemoryBudget).
        if (io.ashlar.merge.MemoryBudget.heapRanOutIf(cause)) {
            // Close at once, allocating as little as can be: a Terminate to write, or a reason to build, may run out
            // again here, and the connection then stayed open with its statement running on the backend.
            if (closeReason.isEmpty()) {
                closeReason = HEAP_RAN_OUT;
            }
            ready.tryFailure(cause);
            ctx.channel().close();
            return;
        }
        if (state == State.TLS_HANDSHAKE) {
            fail(spec.tls().handshakeFailure(cause, spec.host()));
        } else if (state != State.READY && state != State.CLOSED) {
            fail("I/O error during login: " + DataSourceHealth.reason(cause));
        } else if (state == State.READY && cause instanceof java.io.IOException) {
            // A reset, or keepalive and TCP_USER_TIMEOUT giving up on a host that stopped answering.
            String reason = "I/O error on the backend connection: " + DataSourceHealth.reason(cause);
            close(reason);
            lost(reason);
            return;
        }
        close("I/O error on the backend connection: " + DataSourceHealth.reason(cause));
    }

    /** The pool that lent this link hears of its loss: its data source is marked down. */
    private void lost(String reason) {
        LinkPool.LoopPool current = owner;
        if (current != null && !current.pool().isClosed() && !channel.eventLoop().isShuttingDown()) {
            // (A proxy that stops closes its loops' channels: that says nothing of the data source.)
            current.pool().health().lost(reason, false);
        }
    }

    /** The pool the link belongs to, once it logged in (its losses mark the data source down). */
    void owner(LinkPool.LoopPool pool) {
        this.owner = pool;
    }

    // ------------------------------------------------------------------ used by sessions

    /** Who gets the backend's messages from now on (null while the link is idle in its pool). */
    public void receiver(Receiver receiver) {
        this.receiver = receiver;
    }

    /** The buffer of what goes to the backend at the next {@link #flush()}. */
    public ByteBuf out() {
        ByteBuf result = pending;
        if (result == null) {
            result = channel.alloc().ioBuffer(256);
            pending = result;
        }
        return result;
    }

    /** Encodes a message into {@link #out()}. */
    public void write(FrontendMessage message) {
        message.encode(out());
    }

    /** Appends a message whose strings are written in {@code text} (see {@link FrontendMessage#encode(ByteBuf, java.nio.charset.Charset)}). */
    public void write(FrontendMessage message, java.nio.charset.Charset text) {
        message.encode(out(), text);
    }

    /**
     * The charset of the text this connection exchanges with its backend now: its client_encoding
     * as the backend last reported it (UTF-8 unless a session set another; ISO-8859-1, byte for
     * byte, for an encoding Java has no charset for).
     */
    public java.nio.charset.Charset textCharset() {
        return textCharset;
    }

    /** The last client_encoding the backend reported that a Java charset reads as PostgreSQL does (its canonical name). */
    public String readableEncoding() {
        return readableEncoding;
    }

    /**
     * Sends a buffer of messages at once; any thread may call it (a session that runs its
     * statements as method calls sends from its own thread).
     */
    public void send(ByteBuf messages) {
        sending(messages.readableBytes());
        if (channel.isActive()) {
            channel.writeAndFlush(messages, channel.voidPromise());
        } else {
            messages.release();
        }
    }

    /** Sends what {@link #out()} holds. */
    public void flush() {
        ByteBuf result = pending;
        if (result != null) {
            pending = null;
            sending(result.readableBytes());
            if (channel.isActive()) {
                channel.writeAndFlush(result, channel.voidPromise());
            } else {
                result.release();
            }
        }
    }

    private void releasePending() {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }

    /** Stops (or resumes) reading from the backend: its rows wait while the client cannot take them. */
    public void autoRead(boolean on) {
        // Read first: the pool turns reading on at every return, where it is almost always on
        // already, and setting it is an atomic swap.
        if (channel.config().isAutoRead() != on) {
            channel.config().setAutoRead(on);
        }
    }

    /** ReadyForQuery's status at the last one: 'I', 'T' or 'E'. */
    public char status() {
        return status;
    }

    public boolean isOpen() {
        return state != State.CLOSED && channel.isActive();
    }

    /**
     * Whether the backend writes text as the proxy's decoders read it and reads SQL text as the
     * proxy's lexer does: a client_encoding a Java charset reads ({@link #textCharset()}) and
     * standard_conforming_strings on (as reported by ParameterStatus; one field read per statement, no map lookup). DateStyle is not part of it: a
     * session's dates are printed in any style, and what would have to read them in another than ISO
     * (a merge comparing them, a binary value encoded from their text) is refused or done otherwise
     * where it happens.
     */
    public boolean plainText() {
        return plainText;
    }

    /** Why the connection ended (the backend's FATAL when it sent one), empty while it is open. */
    public String closeReason() {
        return closeReason;
    }

    /** The parameters the backend reported (ParameterStatus), latest values. */
    public Map<String, String> parameters() {
        return parameters;
    }

    public EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** The connection's channel (its options, for tests). */
    Channel channel() {
        return channel;
    }

    /** The session settings this connection carries now (what a reset undoes). */
    public SessionSettings settings() {
        return settings;
    }

    /**
     * The session settings the connection carries now. PostgreSQL reads a statement's names and
     * literals at Parse under the session's settings (search_path picks the table, TimeZone and
     * DateStyle read a timestamp literal): statements prepared here under other settings are not
     * reused, but retired (closed before the next Parse). UNKNOWN (state lost, to be reset) keeps
     * them: the connection is given known settings before it runs anything.
     */
    public void settings(SessionSettings settings) {
        this.settings = settings;
        if (settings != SessionSettings.UNKNOWN && settings != preparedUnder && !settings.equals(preparedUnder)) {
            if (!prepared.isEmpty()) {
                for (Named each : prepared.values()) {
                    retired.add(each.name);
                }
                prepared.clear();
            }
            preparedUnder = settings;
        }
    }

    /** The backend's process id (BackendKeyData): NOTIFYs from this connection carry it. */
    public int backendProcessId() {
        return processId;
    }

    /** Whether the connection is encrypted (TLS). */
    public boolean encrypted() {
        return tls != null;
    }

    /** The user this connection logged in as. */
    public String loginUser() {
        return spec.user();
    }

    /** When the connection was made (milliseconds since the epoch). */
    public long createdMillis() {
        return createdMillis;
    }

    /** Whether a session holds the connection now (else it is idle in its pool, or logging in). */
    public boolean inUse() {
        return receiver != null;
    }

    /** The proxy's end of the connection, or null before it is connected. */
    public java.net.SocketAddress localAddress() {
        return channel == null ? null : channel.localAddress();
    }

    /** The name under which a statement is prepared on this connection, or null. */
    public String prepared(PreparedKey key) {
        Named named = prepared.get(key);
        if (named == null) {
            return null;
        }
        named.used = ++uses;
        return named.name;
    }

    /**
     * A name for a statement about to be prepared on this connection, remembered at once; the
     * caller forgets it ({@link #forget}) should the Parse fail. When the connection keeps
     * {@link #MAX_PREPARED} statements already, the least recently used one must be closed first:
     * see {@link #eldestPrepared()}.
     */
    public String remember(PreparedKey key) {
        String result = "ashlar_" + Integer.toString(nextPrepared++, 36);
        prepared.put(key, new Named(result, ++uses));
        return result;
    }

    /** The least recently used prepared statement when the connection keeps as many as it may, else null. */
    public Map.Entry<PreparedKey, String> eldestPrepared() {
        if (prepared.size() < MAX_PREPARED) {
            return null;
        }
        Map.Entry<PreparedKey, Named> eldest = null;
        for (Map.Entry<PreparedKey, Named> each : prepared.entrySet()) {
            if (eldest == null || each.getValue().used < eldest.getValue().used) {
                eldest = each;
            }
        }
        return Map.entry(eldest.getKey(), eldest.getValue().name);
    }

    public void forget(PreparedKey key) {
        prepared.remove(key);
    }

    /**
     * Forgets a statement whose plan went stale (DDL changed its result type) and keeps its name to
     * be closed on the backend ({@link #pollRetired()}) before the next Parse.
     */
    public void retire(PreparedKey key) {
        Named named = prepared.remove(key);
        if (named != null) {
            retired.addLast(named.name);
        }
    }

    /** A retired statement's name still to close on the backend, or null. */
    public String pollRetired() {
        return retired.pollFirst();
    }

    /**
     * Whether a CancelRequest was sent for this connection and no statement ended cancelled since:
     * it may still reach the backend and cancel whatever runs next, so the connection must not
     * serve another session (PostgreSQL ignores a cancel that finds its backend idle, not one that
     * finds it running someone else's statement).
     */
    public boolean cancelPending() {
        return cancelPending;
    }

    private static boolean hasSqlState(ByteBuf in, int body, int end, String sqlState) {
        return fieldIs(in, body, end, (byte) 'C', sqlState);
    }

    /** The field {@code code} of an ErrorResponse body, or empty. */
    private static String fieldValue(ByteBuf in, int body, int end, byte code) {
        int at = body;
        while (at < end && in.getByte(at) != 0) {
            int stringEnd = in.indexOf(at + 1, end, (byte) 0);
            if (stringEnd < 0) {
                return "";
            }
            if (in.getByte(at) == code) {
                return in.toString(at + 1, stringEnd - at - 1, StandardCharsets.UTF_8);
            }
            at = stringEnd + 1;
        }
        return "";
    }

    /** Whether an ErrorResponse or NoticeResponse body has the field {@code code} with exactly {@code value}. */
    private static boolean fieldIs(ByteBuf in, int body, int end, byte code, String value) {
        int at = body;
        while (at < end && in.getByte(at) != 0) {
            int stringEnd = in.indexOf(at + 1, end, (byte) 0);
            if (stringEnd < 0) {
                return false;
            }
            if (in.getByte(at) == code) {
                return stringEnd - at - 1 == value.length()
                        && in.toString(at + 1, value.length(), StandardCharsets.US_ASCII).equals(value);
            }
            at = stringEnd + 1;
        }
        return false;
    }

    /**
     * Whether an ErrorResponse body may say that a statement prepared here can no longer run as
     * prepared: PostgreSQL's "cached plan must not change result type" after DDL is 0A000 (the
     * message itself is translated by lc_messages; another 0A000 at Bind costs one Parse more).
     */
    public static boolean isStalePlan(ByteBuf in, int body, int end) {
        return hasSqlState(in, body, end, "0A000");
    }

    /** Forgets every statement prepared here (DISCARD ALL, DEALLOCATE ALL closed them). */
    public void forgetAllPrepared() {
        prepared.clear();
        retired.clear();
    }

    /**
     * Cancels what the backend runs now: PostgreSQL's CancelRequest, on a connection of its own.
     * Nothing is sent back; the statement ends with 57014 on this connection.
     */
    public void cancel() {
        if (processId == 0) {
            return;
        }
        cancelPending = true;
        CancelRequest request = new CancelRequest(processId, secretKey);
        if (channel.eventLoop().isShuttingDown()) {
            return; // the loop would not connect, nor tell the count it did not
        }
        CANCELS_IN_FLIGHT.incrementAndGet();
        new Bootstrap().group(channel.eventLoop()).channel(channel.getClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, spec.connectTimeoutMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        track(ch); // a stop closes it too, should it still be open then
                    }
                })
                .connect(spec.host(), spec.port()).addListener((ChannelFutureListener) connected -> {
                    if (connected.isSuccess()) {
                        ByteBuf out = connected.channel().alloc().buffer(16);
                        request.encode(out);
                        connected.channel().writeAndFlush(out).addListener((ChannelFutureListener) written -> {
                            CANCELS_IN_FLIGHT.decrementAndGet();
                            written.channel().close();
                        });
                    } else {
                        CANCELS_IN_FLIGHT.decrementAndGet();
                    }
                });
    }

    /** Cancel requests connecting or being written: see {@link #awaitCancels}. */
    private static final java.util.concurrent.atomic.AtomicInteger CANCELS_IN_FLIGHT = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Waits, up to {@code millis}, until every cancel request sent so far has reached its server (or failed to): the
     * proxy's stop calls it before its event loops end, which would drop one still connecting, and leave the
     * statement it was for running on its backend after the proxy is gone.
     *
     * @return whether none is left
     */
    public static boolean awaitCancels(long millis) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
        while (CANCELS_IN_FLIGHT.get() > 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Ends the connection (Terminate, then close); the receiver hears {@link Receiver#closed}. */
    public void close(String reason) {
        if (state == State.CLOSED) {
            return;
        }
        if (closeReason.isEmpty()) {
            closeReason = reason;
        }
        if (channel != null && channel.isActive() && state == State.READY) {
            ByteBuf out = channel.alloc().buffer(5);
            Terminate.INSTANCE.encode(out);
            channel.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        } else if (channel != null) {
            channel.close();
        }
    }

    void close() {
        close("closed by the pool");
    }

    @Override
    public String toString() {
        return "ServerLink[" + spec.host() + ":" + spec.port() + "/" + spec.database() + " pid " + processId + "]";
    }
}
