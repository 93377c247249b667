package io.ashlar.frontend.server;

import io.ashlar.backend.execute.ClientEncoding;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionSettings;
import io.ashlar.frontend.auth.AuthStep;
import io.ashlar.frontend.auth.Authenticator;
import io.ashlar.frontend.auth.Authenticators;
import io.ashlar.frontend.auth.LoginUser;
import io.ashlar.frontend.tls.FrontendTls;
import io.ashlar.protocol.AuthenticationOk;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.FunctionCall;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.Flush;
import io.ashlar.protocol.Sync;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.Parse;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.BackendKeyData;
import io.ashlar.protocol.CancelRequest;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.EncryptionAccepted;
import io.ashlar.protocol.EncryptionRefused;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.ErrorResponseProtocol2;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.MessageMemory;
import io.ashlar.protocol.PgFrontendDecoder;
import io.ashlar.protocol.GSSENCRequest;
import io.ashlar.protocol.NegotiateProtocolVersion;
import io.ashlar.protocol.ParameterStatus;
import io.ashlar.protocol.PasswordMessage;
import io.ashlar.protocol.PgErrorFields;
import io.ashlar.protocol.ReadyForQuery;
import io.ashlar.protocol.SSLRequest;
import io.ashlar.protocol.StartupMessage;
import io.ashlar.protocol.Terminate;
import io.ashlar.frontend.session.FrontendSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection from its first byte to its session: answers SSLRequest (with 'S' and a
 * TLS handshake when TLS is set up, else 'N') and GSSENCRequest ('N'), handles CancelRequest,
 * checks the startup packet, authenticates, checks the user may use the database, then hands every
 * message to the {@link FrontendSession}. Runs on the connection's event loop; what may block
 * (JDBC) runs in the session.
 *
 * <p>The door's rules, as PostgreSQL keeps them: a connection that has not logged in within the
 * authentication timeout is closed without a word (PostgreSQL's {@code authentication_timeout});
 * a login that requires TLS and came without it is refused before any password is asked for; a
 * user nobody configured goes through the whole exchange and fails as a wrong password does; the
 * answer to a wrong password may wait ({@code auth_delay}); a user not granted the database gets
 * 42501 whether the database exists or not.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">Start-up</a>
 */
final class PgConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(PgConnectionHandler.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { STARTUP, AUTHENTICATING, READY, CLOSED }

    private final FrontendContext context;
    private State state = State.STARTUP;
    private StartupMessage startup;
    /** Who is logging in: a configured user, or an unknown one's stand-in that never logs in. */
    private LoginUser loginUser;
    private Authenticator authenticator;
    /** Closes the connection if it has not logged in in time; cancelled at login and at close. */
    private ScheduledFuture<?> authenticationTimeout;
    /** {@code tls-server-end-point} of the certificate this connection's TLS shows; empty without TLS. */
    private byte[] certificateHash = new byte[0];
    private boolean encrypted;
    private FrontendSession session;
    /** The session when the native data path relays it (a pooled database), instead of {@link #session}. */
    private io.ashlar.frontend.relay.RelaySession relay;
    private boolean counted;
    private final List<FrontendMessage> read = new ArrayList<>();
    /** This connection's account of large messages (the decoder's), from the login on. */
    private MessageMemory.Client messageMemory;

    PgConnectionHandler(FrontendContext context) {
        this.context = context;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        counted = context.connectionOpened();
        if (!counted) {
            fatal(ctx, "53300", "sorry, too many clients already");
            return;
        }
        authenticationTimeout = ctx.executor().schedule(() -> authenticationTimedOut(ctx),
                context.policy().authenticationTimeoutMillis(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    /**
     * The client took longer than the authentication timeout to log in: half a startup packet, a
     * stalled TLS handshake, a password exchange left in the middle. PostgreSQL closes such a
     * connection without sending anything (it must not risk a write to a client that is mid-way
     * through authentication), and logs it; so does the proxy.
     */
    private void authenticationTimedOut(ChannelHandlerContext ctx) {
        if (state == State.STARTUP || state == State.AUTHENTICATING) {
            if (state == State.AUTHENTICATING) {
                LOG.info("connection from {}, user {}: canceling authentication due to timeout", ctx.channel().remoteAddress(),
                        startup.user());
            }
            state = State.CLOSED;
            ctx.close();
        }
    }

    private void cancelAuthenticationTimeout() {
        if (authenticationTimeout != null) {
            authenticationTimeout.cancel(false);
            authenticationTimeout = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        FrontendMessage message = (FrontendMessage) msg;
        switch (state) {
            case READY -> {
                if (context.isStopping() && (relay != null ? relay.isQuiet() : session.isQuiet() && read.isEmpty())) {
                    // The proxy stops and this session is idle: its next statement does not start, as a PostgreSQL
                    // backend told to stop ends at its next command. A session on its own thread ends itself, after
                    // what it still has on its way to the client (its last answer).
                    state = State.CLOSED;
                    io.netty.channel.Channel channel = ctx.channel();
                    if (relay != null) {
                        FrontendContext.end(channel);
                    } else {
                        session.endIfQuiet(() -> FrontendContext.end(channel));
                    }
                    return;
                }
                if (relay != null) {
                    relay.handle(message);
                    // Passed on to the backend (or queued behind a connection being borrowed): no longer counted.
                    messageMemory.taken(message);
                } else {
                    read.add(message);
                }
            }
            case STARTUP -> onStartup(ctx, message);
            case AUTHENTICATING -> onAuthentication(ctx, message);
            case CLOSED -> { }
        }
    }

    private void onStartup(ChannelHandlerContext ctx, FrontendMessage message) {
        switch (message) {
            case SSLRequest r -> answerSslRequest(ctx);
            case GSSENCRequest r -> ctx.writeAndFlush(EncryptionRefused.INSTANCE);
            case CancelRequest c -> {
                context.cancel(c.processId(), c.secretKey());
                state = State.CLOSED;
                ctx.close();
            }
            case StartupMessage s -> startup(ctx, s);
            case FrontendMessage.Malformed m when m.protocol2() -> {
                state = State.CLOSED;
                ClientChannels.closeWith(ctx.channel(), ErrorResponseProtocol2.fatal(m.reason()));
            }
            case FrontendMessage.Malformed m -> fatal(ctx, m.sqlState(), m.reason());
            default -> fatal(ctx, "08P01", "expected a startup packet");
        }
    }

    /**
     * 'S' and a TLS handshake when TLS is set up, else 'N'. Bytes that came in the clear behind the
     * SSLRequest were not encrypted and may have been put there by a man in the middle: as
     * PostgreSQL does, they are dropped and the client is told so, over TLS once the handshake is
     * done.
     */
    private void answerSslRequest(ChannelHandlerContext ctx) {
        Optional<FrontendTls> tls = context.tls();
        if (tls.isEmpty()) {
            ctx.writeAndFlush(EncryptionRefused.INSTANCE);
            return;
        }
        PgFrontendDecoder decoder = ctx.pipeline().get(PgFrontendDecoder.class);
        boolean injected = decoder.bufferedBytes() > 0;
        if (injected) {
            decoder.discardBuffered();
        }
        FrontendTls.Identity identity = tls.get().identity();
        // Written before the SslHandler is in the pipeline, so the 'S' goes out in the clear.
        ctx.writeAndFlush(EncryptionAccepted.INSTANCE);
        SslHandler ssl = identity.context().newHandler(ctx.alloc());
        ssl.setHandshakeTimeoutMillis(context.policy().authenticationTimeoutMillis());
        ctx.pipeline().addFirst("tls", ssl);
        decoder.encryptionStarted();
        encrypted = true;
        certificateHash = identity.certificateHash();
        if (injected) {
            state = State.CLOSED;
            ssl.handshakeFuture().addListener(handshake -> {
                if (handshake.isSuccess()) {
                    send(ctx, new ErrorResponse(PgErrorFields.builder(PgErrorFields.FATAL, "08P01",
                            "received unencrypted data after SSL request").detail("This could be either a client-software"
                            + " bug or evidence of an attempted man-in-the-middle attack.").build()));
                }
            });
        }
    }

    private void startup(ChannelHandlerContext ctx, StartupMessage message) {
        this.startup = message;
        ClientDialect dialect = message.dialect();
        if (message.majorVersion() != 3) {
            fatal(ctx, "0A000", "unsupported frontend protocol " + message.majorVersion() + "." + message.minorVersion()
                    + ": server supports 3.0 to 3.0");
            return;
        }
        String user = message.user();
        if (user.isEmpty()) {
            fatal(ctx, "28000", "no PostgreSQL user name specified in startup packet");
            return;
        }
        String encoding = message.clientEncoding().orElse("UTF8");
        ClientEncoding requested = clientEncoding(encoding);
        if (requested == null) {
            fatal(ctx, "22023", "invalid value for parameter \"client_encoding\": \"" + encoding + "\"");
            return;
        }
        LoginUser configured = context.user(user);
        if (!encrypted && (context.policy().tlsRequired() || (configured != null && configured.tlsRequired()))) {
            // pg_hba.conf with hostssl lines only: no password is asked for in the clear.
            fatal(ctx, new ErrorResponse(PgErrorFields.builder(PgErrorFields.FATAL, "28000", "no pg_hba.conf entry for host \""
                    + clientHost(ctx) + "\", user \"" + user + "\", database \"" + message.database() + "\", no encryption")
                    .hint("Ashlar accepts this login over TLS only: connect with sslmode=require (or verify-full).").build()));
            return;
        }
        loginUser = configured != null ? configured : context.unknownUser(user);
        if (dialect == ClientDialect.POSTGRESQL && (message.minorVersion() > 0 || !message.protocolOptions().isEmpty())) {
            ctx.write(new NegotiateProtocolVersion(0, message.protocolOptions()));
        }
        authenticator = Authenticators.create(loginUser.verifiers(), dialect, certificateHash);
        state = State.AUTHENTICATING;
        ctx.writeAndFlush(authenticator.start());
    }

    private static String clientHost(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : String.valueOf(ctx.channel().remoteAddress());
    }

    /**
     * The encoding a startup packet's client_encoding names, as PostgreSQL matches encoding names
     * ({@code 'utf-8'}, asyncpg's spelling, quotes included, is UTF8; {@code auto} is UTF8 here);
     * null when PostgreSQL knows no such encoding, or Java has no charset for it.
     */
    static ClientEncoding clientEncoding(String requested) {
        return ClientEncoding.key(requested).equals("auto") ? ClientEncoding.UTF8 : ClientEncoding.find(requested);
    }

    private void onAuthentication(ChannelHandlerContext ctx, FrontendMessage message) {
        if (message instanceof Terminate) {
            state = State.CLOSED;
            ctx.close();
            return;
        }
        if (!(message instanceof PasswordMessage password)) {
            if (message instanceof FrontendMessage.Malformed m && m.fatal()) {
                fatal(ctx, m.sqlState(), m.reason());
            } else {
                fatal(ctx, "08P01", "expected password response, got message type " + (typeOf(message) & 0xff));
            }
            return;
        }
        AuthStep step = authenticator.onPassword(password.body());
        switch (step) {
            case AuthStep.Continue c -> ctx.writeAndFlush(c.message());
            case AuthStep.Failure f -> loginFailed(ctx, f);
            case AuthStep.Success s -> {
                s.finalMessage().ifPresent(ctx::write);
                context.loggedIn(startup.dialect(), authenticator.method());
                loggedIn(ctx);
            }
        }
    }

    /**
     * A refused exchange. The answer to a wrong password waits {@code auth_delay} first, on a timer
     * (the connection stays open and counted meanwhile, as PostgreSQL's backend sleeps): guessing
     * passwords gets slower, and nobody else waits.
     */
    private void loginFailed(ChannelHandlerContext ctx, AuthStep.Failure failure) {
        // PostgreSQL logs a refused login as one FATAL line; so does Ashlar, the reason in the line.
        LOG.info("connection {}: login refused: {} ({})", ctx.channel().remoteAddress(), failure.message(), failure.sqlState());
        long delay = AuthStep.Failure.INVALID_PASSWORD.equals(failure.sqlState()) ? context.policy().authDelayMillis() : 0;
        if (delay == 0) {
            fatal(ctx, failure.toErrorResponse());
            return;
        }
        state = State.CLOSED;
        cancelAuthenticationTimeout();
        ctx.channel().config().setAutoRead(false);
        ctx.executor().schedule(() -> send(ctx, failure.toErrorResponse()), delay, TimeUnit.MILLISECONDS);
    }

    /** The type byte of a message that may come after the startup packet. */
    private static byte typeOf(FrontendMessage message) {
        return switch (message) {
            case Query m -> Query.TYPE;
            case Parse m -> Parse.TYPE;
            case Bind m -> Bind.TYPE;
            case Describe m -> Describe.TYPE;
            case Execute m -> Execute.TYPE;
            case Close m -> Close.TYPE;
            case Sync m -> Sync.TYPE;
            case Flush m -> Flush.TYPE;
            case CopyData m -> CopyData.TYPE;
            case CopyDone m -> CopyDone.TYPE;
            case CopyFail m -> CopyFail.TYPE;
            case FunctionCall m -> FunctionCall.TYPE;
            case BatchBind m -> BatchBind.TYPE;
            case FrontendMessage.Malformed m -> m.type();
            case FrontendMessage.TooLarge m -> m.type();
            default -> 0;
        };
    }

    private void loggedIn(ChannelHandlerContext ctx) {
        if (context.isStopping()) {
            fatal(ctx, "57P03", "the database system is shutting down");
            return;
        }
        String databaseName = startup.database();
        if (!loginUser.databases().allows(databaseName)) {
            // Checked before the database is looked up: a user learns nothing of databases not granted to it.
            fatal(ctx, new ErrorResponse(PgErrorFields.builder(PgErrorFields.FATAL, "42501", "permission denied for database \""
                    + databaseName + "\"").detail("User does not have CONNECT privilege.").build()));
            return;
        }
        LogicalDatabase database = context.database(databaseName);
        if (database == null) {
            fatal(ctx, "3D000", "database \"" + databaseName + "\" does not exist");
            return;
        }
        boolean relayed = relays(database, startup.dialect());
        ClientEncoding encoding = clientEncoding();
        if (!encoding.exact() && !relayed) {
            // A relayed session passes its text on byte for byte and the backend converts it; a sharded one reads routing
            // values and merged text itself, by a Java charset that must read them as PostgreSQL does.
            fatal(ctx, "0A000", "client_encoding \"" + encoding.name() + "\" is not supported by Ashlar on a sharded"
                    + " database: Java reads some of its characters otherwise than PostgreSQL; use UTF8 (any single-byte"
                    + " encoding, SJIS and UHC are supported)");
            return;
        }
        SessionSettings settings;
        Map<String, String> parameters = startup.parameters();
        String timeZone = parameterValue(parameters, "TimeZone");
        try {
            settings = startupSettings(parameters, !relayed);
            for (String style : PRINTING_STYLES) {
                String serverStyle = database.backendParameters().get(style);
                if (!relayed && settings.value(style) == null && serverStyle != null) {
                    // Every data source's connections print dates and intervals in the style the client is told (the
                    // default data source's), whatever another one's own default is (ALTER DATABASE ... SET DateStyle
                    // on one shard): rows of several shards pass on alike, and the merges and binary encoders read
                    // them by it.
                    settings = settings.with(style, serverStyle);
                }
            }
        } catch (UnsupportedOperationException e) {
            fatal(ctx, "0A000", e.getMessage());
            return;
        } catch (IllegalArgumentException e) {
            fatal(ctx, "22023", e.getMessage());
            return;
        }
        int processId = context.nextProcessId();
        int secretKey = RANDOM.nextInt();
        BackendSession backend = null;
        PgFrontendDecoder decoder = ctx.pipeline().get(PgFrontendDecoder.class);
        messageMemory = decoder.memory();
        if (!encoding.name().equals("UTF8")) {
            // Every connection the session uses gets its client_encoding: the backend converts, and rows pass as the
            // backend sent them.
            settings = settings.with("client_encoding", encoding.name());
        }
        if (relayed) {
            decoder.textCharset(java.nio.charset.StandardCharsets.ISO_8859_1);
            relay = new io.ashlar.frontend.relay.RelaySession(ctx.channel(),
                    database.defaultDataSource().links().on(ctx.channel().eventLoop()), settings, processId,
                    () -> context.unregister(processId));
            relay.admin(adminConsole(ctx, database));
            if (database.statementLog() != null) {
                relay.statementLog(database.statementLog(), database.name());
            }
            if (database.metrics() != null) {
                relay.metrics(database.metrics(), countBytesIn(ctx, database));
            }
            context.register(processId, relay, secretKey, ctx.channel(), clientInfo(ctx, database, processId, relay));
        } else {
            backend = BackendSession.open(database, settings, ctx.channel().eventLoop(), identity(ctx, database));
            session = new FrontendSession(ctx.channel(), backend, context.sessionThreads(ctx.channel().eventLoop()), processId,
                    () -> context.unregister(processId), startup.dialect());
            session.runsOnLoop(LoopThreads.onLoops());
            // A session that reads its text (statements, routing values, merged rows) reads it in its client_encoding,
            // and writes its own (messages, column names) in it.
            decoder.textCharset(encoding.charset(), encoding.checkedAs());
            session.textCharset(encoding.charset());
            session.messageMemory(messageMemory);
            session.admin(adminConsole(ctx, database));
            if (database.statementLog() != null) {
                session.statementLog(database.statementLog(), database.name(), startup.user());
            }
            if (database.metrics() != null) {
                session.metrics(database.metrics(), countBytesIn(ctx, database));
            }
            context.register(processId, session, secretKey, ctx.channel(), clientInfo(ctx, database, processId, session));
        }
        decoder.authenticated();

        ctx.write(AuthenticationOk.INSTANCE);
        Map<String, String> backendParameters = database.backendParameters();
        String user = startup.user();
        for (String[] p : List.of(
                new String[] {"application_name", valueOr(parameterValue(parameters, "application_name"), "")},
                new String[] {"client_encoding", encoding.name()},
                new String[] {"DateStyle", dateStyle(parameterValue(parameters, "DateStyle"), backendParameters.getOrDefault("DateStyle", "ISO, MDY"))},
                new String[] {"default_transaction_read_only", "off"},
                new String[] {"in_hot_standby", "off"},
                new String[] {"integer_datetimes", "on"},
                new String[] {"IntervalStyle", valueOr(lowerCase(parameterValue(parameters, "IntervalStyle")),
                        backendParameters.getOrDefault("IntervalStyle", "postgres"))},
                new String[] {"is_superuser", backendParameters.getOrDefault("is_superuser", "on")},
                new String[] {"server_encoding", backendParameters.getOrDefault("server_encoding", "UTF8")},
                new String[] {"server_version", backendParameters.getOrDefault("server_version", "14.0")},
                new String[] {"session_authorization", user},
                new String[] {"standard_conforming_strings", "on"},
                new String[] {"TimeZone", timeZone != null ? timeZone : backendParameters.getOrDefault("TimeZone", "UTC")})) {
            ctx.write(new ParameterStatus(p[0], p[1]));
            if (relay != null) {
                relay.reported(p[0], p[1]);
            } else {
                backend.reported(p[0], p[1]);
            }
        }
        ctx.write(new BackendKeyData(processId, secretKey));
        ctx.writeAndFlush(ReadyForQuery.IDLE);
        state = State.READY;
        cancelAuthenticationTimeout();
    }

    /**
     * The counters of the client's loop for its database, which from now on also count the bytes the client sends
     * (a handler ahead of the decoder: one add per read).
     */
    private static io.ashlar.backend.metrics.SessionCounters countBytesIn(ChannelHandlerContext ctx, LogicalDatabase database) {
        io.ashlar.backend.metrics.SessionCounters counters = database.metrics().on(ctx.channel().eventLoop());
        ctx.pipeline().addBefore("decoder", "bytes-in", new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext handler, Object msg) {
                if (msg instanceof io.netty.buffer.ByteBuf buf) {
                    counters.received(buf.readableBytes());
                }
                handler.fireChannelRead(msg);
            }

            @Override
            public boolean isSharable() {
                return false;
            }
        });
        return counters;
    }

    private io.ashlar.frontend.admin.AdminConsole adminConsole(ChannelHandlerContext ctx, LogicalDatabase database) {
        return new io.ashlar.frontend.admin.AdminConsole(context.adminView(), loginUser.admin(), loginUser.databases(),
                database, identity(ctx, database));
    }

    /** The client as SHOW CLIENTS lists it. */
    private io.ashlar.frontend.admin.ClientInfo clientInfo(ChannelHandlerContext ctx, LogicalDatabase database, int processId,
                                                           ClientSession session) {
        String address = null;
        int port = 0;
        String localAddress = null;
        int localPort = 0;
        if (ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress remote) {
            address = remote.getAddress().getHostAddress();
            port = remote.getPort();
        }
        if (ctx.channel().localAddress() instanceof java.net.InetSocketAddress local) {
            localAddress = local.getAddress().getHostAddress();
            localPort = local.getPort();
        }
        String applicationName = valueOr(parameterValue(startup.parameters(), "application_name"), "");
        return new io.ashlar.frontend.admin.ClientInfo(processId, startup.user(), database.name(), address, port,
                localAddress, localPort, System.currentTimeMillis(), encrypted, applicationName, session::isQuiet);
    }

    /** Who the client is: its proxy user and logical database, and the proxy's address and port it reached. */
    private io.ashlar.backend.session.SessionIdentity identity(ChannelHandlerContext ctx, LogicalDatabase database) {
        String address = null;
        int port = 0;
        if (ctx.channel().localAddress() instanceof java.net.InetSocketAddress local) {
            address = local.getAddress().getHostAddress();
            port = local.getPort();
        }
        return new io.ashlar.backend.session.SessionIdentity(startup.user(), database.name(), address, port);
    }

    private static String valueOr(String value, String otherwise) {
        return value != null ? value : otherwise;
    }

    /** An enum setting's value as PostgreSQL reports it: its canonical name is lower case. */
    private static String lowerCase(String value) {
        return value == null ? null : value.trim().toLowerCase(Locale.ROOT);
    }

    /**
     * The DateStyle that PostgreSQL reports for a session whose startup packet asked for {@code requested}
     * (null: nothing asked): like its {@code check_datestyle}, the value always names both the output style
     * and the field order, and the part not asked for keeps the server's default, so pgjdbc's
     * {@code DateStyle=ISO} is reported as {@code ISO, MDY}. Told only {@code ISO}, a client would get a
     * second ParameterStatus after its next SET, when the backend's own report is passed on. A sharded
     * database's sessions are ISO ({@link #startupSettings} refuses any other); a relayed one's may be any.
     *
     * @see <a href="https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-DATESTYLE">DateStyle</a>
     */
    static String dateStyle(String requested, String serverDefault) {
        if (requested == null) {
            return serverDefault;
        }
        String style = null;
        String order = null;
        boolean asked = true;
        for (String part : new String[] {requested, serverDefault}) {
            for (String each : part.toUpperCase(Locale.ROOT).split("[,\\s]+")) {
                String token = switch (each) {
                    case "DMY", "EURO", "EUROPEAN" -> "DMY";
                    case "MDY", "US", "NONEURO", "NONEUROPEAN" -> "MDY";
                    case "YMD" -> "YMD";
                    default -> null;
                };
                if (token != null && order == null) {
                    order = token;
                }
                String named = switch (each) {
                    case "ISO" -> "ISO";
                    case "SQL" -> "SQL";
                    case "POSTGRES" -> "Postgres";
                    case "GERMAN" -> "German";
                    default -> null;
                };
                if (named != null && style == null) {
                    style = named;
                }
            }
            if (asked && order == null && "German".equals(style)) {
                order = "DMY"; // German without an order means day first, as PostgreSQL's check_datestyle sets it
            }
            asked = false;
        }
        return (style == null ? "ISO" : style) + ", " + (order == null ? "MDY" : order);
    }

    /** Whether the startup packet sets this GUC (names are case-insensitive), directly or in options. */
    private static boolean hasParameter(Map<String, String> parameters, String name) {
        return parameterValue(parameters, name) != null;
    }

    private static String parameterValue(Map<String, String> parameters, String name) {
        String result = null;
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                result = e.getValue();
            }
        }
        String options = parameters.get("options");
        if (options != null) {
            String lower = options.toLowerCase(Locale.ROOT);
            String key = name.toLowerCase(Locale.ROOT) + "=";
            int at = lower.lastIndexOf(key);
            if (at >= 0) {
                int end = options.indexOf(' ', at);
                result = options.substring(at + key.length(), end < 0 ? options.length() : end);
            }
        }
        return result;
    }

    private ClientEncoding clientEncoding() {
        return clientEncoding(startup.clientEncoding().orElse("UTF8"));
    }

    /**
     * The GUCs of the startup packet, to be carried by every backend connection the session
     * uses: any parameter but the connection's own (user, database, client_encoding,
     * replication), plus {@code -c name=value} / {@code --name=value} from {@code options}.
     */
    static SessionSettings startupSettings(Map<String, String> parameters) {
        return startupSettings(parameters, true);
    }

    /**
     * Whether a session is relayed by the native data path: a database without rules (a pooler),
     * a PostgreSQL client, a data source without pgjdbc's batched-insert rewriting (which only the
     * JDBC path does). {@code -Dashlar.dataPath=jdbc} keeps every session on the JDBC path.
     */
    private static boolean relays(LogicalDatabase database, ClientDialect dialect) {
        return database.rules().isEmpty() && dialect == ClientDialect.POSTGRESQL && !JDBC_PATH_ONLY
                && !"true".equalsIgnoreCase(database.defaultDataSource().config().driverProperties()
                        .getOrDefault("reWriteBatchedInserts", "false"))
                && !database.defaultDataSource().config().url().contains("reWriteBatchedInserts=true");
    }

    private static final boolean JDBC_PATH_ONLY = "jdbc".equals(System.getProperty("ashlar.dataPath"));

    /** The settings by which a backend prints values, which every data source of a sharded session must share. */
    private static final String[] PRINTING_STYLES = {"DateStyle", "IntervalStyle"};

    /**
     * @param plainTextOnly whether standard_conforming_strings must be on (a sharded database's lexer reads string
     *                      literals as standard SQL does; a relayed pooled database passes any)
     */
    static SessionSettings startupSettings(Map<String, String> parameters, boolean plainTextOnly) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            String name = e.getKey();
            switch (name) {
                case "user", "database", "client_encoding", "replication" -> { }
                case "options" -> parseOptions(e.getValue(), names, values, plainTextOnly);
                default -> add(names, values, name, e.getValue(), plainTextOnly);
            }
        }
        return names.isEmpty() ? SessionSettings.EMPTY
                : new SessionSettings(names.toArray(new String[0]), values.toArray(new String[0])).shared();
    }

    private static void add(List<String> names, List<String> values, String name, String value, boolean plainTextOnly) {
        if (plainTextOnly && name.equalsIgnoreCase("standard_conforming_strings") && !isOn(value)) {
            throw new UnsupportedOperationException("standard_conforming_strings \"" + value + "\" is not supported by Ashlar"
                    + " on a sharded database: its lexer reads string literals as standard SQL does");
        }
        int existing = names.indexOf(name);
        if (existing >= 0) {
            values.set(existing, value);
        } else {
            names.add(name);
            values.add(value);
        }
    }

    /** A boolean setting's spellings of true, as PostgreSQL takes them. */
    private static boolean isOn(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "on", "true", "yes", "1", "t", "y" -> true;
            default -> false;
        };
    }

    /** PostgreSQL's {@code options}: space-separated, backslash escapes a space; {@code -c a=b} or {@code --a=b}. */
    private static void parseOptions(String options, List<String> names, List<String> values, boolean plainTextOnly) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < options.length(); i++) {
            char c = options.charAt(i);
            if (c == '\\' && i + 1 < options.length()) {
                word.append(options.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            String setting;
            if (w.equals("-c") && i + 1 < words.size()) {
                setting = words.get(++i);
            } else if (w.startsWith("-c")) {
                setting = w.substring(2);
            } else if (w.startsWith("--")) {
                setting = w.substring(2);
            } else {
                throw new IllegalArgumentException("invalid command-line argument for server process: " + w);
            }
            int eq = setting.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("invalid command-line argument for server process: " + w);
            }
            add(names, values, setting.substring(0, eq).replace('-', '_'), setting.substring(eq + 1), plainTextOnly);
        }
    }

    private void fatal(ChannelHandlerContext ctx, String sqlState, String message) {
        fatal(ctx, ErrorResponse.fatal(sqlState, message));
    }

    private void fatal(ChannelHandlerContext ctx, ErrorResponse error) {
        state = State.CLOSED;
        cancelAuthenticationTimeout();
        send(ctx, error);
    }

    /** Sends a FATAL error and closes. */
    private static void send(ChannelHandlerContext ctx, ErrorResponse error) {
        ClientChannels.closeWith(ctx.channel(), error);
    }

    /** The end of one read from the socket: the session gets its messages at once. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (relay != null) {
            relay.readComplete();
        }
        if (!read.isEmpty()) {
            session.enqueue(read);
            read.clear();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (session != null) {
            session.writabilityChanged();
        }
        if (relay != null) {
            relay.writabilityChanged();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelAuthenticationTimeout();
        if (counted) {
            counted = false;
            context.connectionClosed();
        }
        if (session != null) {
            if (!read.isEmpty()) {
                session.enqueue(read);
                read.clear();
            }
            session.clientGone();
        }
        if (relay != null) {
            relay.clientGone();
        }
        state = State.CLOSED;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // A client that does not trust the certificate, speaks no common TLS version, or is no TLS client.
            LOG.info("connection {}: could not accept TLS connection: {}", ctx.channel().remoteAddress(), tls.getMessage());
        } else if (!(cause instanceof java.io.IOException)) {
            io.ashlar.merge.MemoryBudget.heapRanOutIf(cause); // the statement holding the heap fails next, and frees it
            LOG.warn("connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
            if (state == State.READY && ctx.channel().isActive()) {
                // A relayed session's own failure (its code runs here, on the loop): the session ends, as a
                // PostgreSQL backend that fails so ends, and its client hears why first. The relay then discards its
                // backend connection (cancelling what runs there) when it sees the client leave.
                Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
                ErrorResponse error = root instanceof OutOfMemoryError ? ErrorResponse.fatal("53200", "out of memory")
                        : root instanceof StackOverflowError ? ErrorResponse.fatal("54001", "stack depth limit exceeded")
                        : ErrorResponse.fatal("XX000", "internal error in Ashlar: " + root);
                state = State.CLOSED;
                ClientChannels.closeWith(ctx.channel(), error);
                return;
            }
        }
        state = State.CLOSED;
        ctx.close();
    }
}
