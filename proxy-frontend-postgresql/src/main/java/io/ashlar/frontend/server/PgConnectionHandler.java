package io.ashlar.frontend.server;

import io.ashlar.backend.execute.ClientEncoding;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.protocol.PgFrontendDecoder;
import io.ashlar.backend.session.SessionSettings;
import io.ashlar.frontend.auth.AuthStep;
import io.ashlar.frontend.auth.Authenticator;
import io.ashlar.frontend.auth.Authenticators;
import io.ashlar.frontend.auth.PasswordVerifiers;
import io.ashlar.protocol.AuthenticationOk;
import io.ashlar.protocol.BackendKeyData;
import io.ashlar.protocol.CancelRequest;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.EncryptionRefused;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.ErrorResponseProtocol2;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.GSSENCRequest;
import io.ashlar.protocol.NegotiateProtocolVersion;
import io.ashlar.protocol.ParameterStatus;
import io.ashlar.protocol.PasswordMessage;
import io.ashlar.protocol.ReadyForQuery;
import io.ashlar.protocol.SSLRequest;
import io.ashlar.protocol.StartupMessage;
import io.ashlar.protocol.Terminate;
import io.ashlar.frontend.session.FrontendSession;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection from its first byte to its session: answers SSLRequest/GSSENCRequest
 * with 'N', handles CancelRequest, checks the startup packet, authenticates, then hands every
 * message to the {@link FrontendSession}. Runs on the connection's event loop; what may block
 * (JDBC) runs in the session.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">Start-up</a>
 */
final class PgConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(PgConnectionHandler.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { STARTUP, AUTHENTICATING, READY, CLOSED }

    private final FrontendContext context;
    private final io.netty.channel.IoHandlerFactory ioFactory;
    private State state = State.STARTUP;
    private StartupMessage startup;
    private Authenticator authenticator;
    private FrontendSession session;
    /** The session when the native data path relays it (a pooled database), instead of {@link #session}. */
    private io.ashlar.frontend.relay.RelaySession relay;
    private boolean counted;
    private final List<FrontendMessage> read = new ArrayList<>();

    /**
     * @param ioFactory the transport's I/O handler (epoll or NIO), for the event loop the session's
     *        own thread drives once the client has logged in
     */
    PgConnectionHandler(FrontendContext context, io.netty.channel.IoHandlerFactory ioFactory) {
        this.context = context;
        this.ioFactory = ioFactory;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        counted = context.connectionOpened();
        if (!counted) {
            fatal(ctx, "53300", "sorry, too many clients already");
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        FrontendMessage message = (FrontendMessage) msg;
        switch (state) {
            case READY -> {
                if (relay != null) {
                    relay.handle(message);
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
            case SSLRequest r -> ctx.writeAndFlush(EncryptionRefused.INSTANCE);
            case GSSENCRequest r -> ctx.writeAndFlush(EncryptionRefused.INSTANCE);
            case CancelRequest c -> {
                context.cancel(c.processId(), c.secretKey());
                state = State.CLOSED;
                ctx.close();
            }
            case StartupMessage s -> startup(ctx, s);
            case FrontendMessage.Malformed m when m.protocol2() -> {
                state = State.CLOSED;
                ctx.writeAndFlush(ErrorResponseProtocol2.fatal(m.reason())).addListener(ChannelFutureListener.CLOSE);
            }
            case FrontendMessage.Malformed m -> fatal(ctx, m.sqlState(), m.reason());
            default -> fatal(ctx, "08P01", "expected a startup packet");
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
        LogicalDatabase wanted = context.database(message.database());
        if (requested.converts() && wanted != null && !relays(wanted, dialect)) {
            // A relayed session passes its text on byte for byte and the backend converts it; a sharded
            // one reads its text (routing values, merged rows) as UTF-8.
            fatal(ctx, "0A000", "client_encoding \"" + encoding + "\" is not supported by Ashlar on a sharded database"
                    + " yet: use UTF8");
            return;
        }
        PasswordVerifiers verifiers = context.user(user);
        if (verifiers == null) {
            fatal(ctx, "28000", "role \"" + user + "\" does not exist");
            return;
        }
        if (dialect == ClientDialect.POSTGRESQL && (message.minorVersion() > 0 || !message.protocolOptions().isEmpty())) {
            ctx.write(new NegotiateProtocolVersion(0, message.protocolOptions()));
        }
        authenticator = Authenticators.create(verifiers, dialect);
        state = State.AUTHENTICATING;
        ctx.writeAndFlush(authenticator.start());
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
            if (message instanceof FrontendMessage.Malformed m) {
                fatal(ctx, m.sqlState(), m.reason());
            } else {
                fatal(ctx, "08P01", "expected password response, got message type " + message.getClass().getSimpleName());
            }
            return;
        }
        AuthStep step = authenticator.onPassword(password.body());
        switch (step) {
            case AuthStep.Continue c -> ctx.writeAndFlush(c.message());
            case AuthStep.Failure f -> fatal(ctx, f.sqlState(), f.message());
            case AuthStep.Success s -> {
                s.finalMessage().ifPresent(ctx::write);
                context.loggedIn(startup.dialect(), authenticator.method());
                loggedIn(ctx);
            }
        }
    }

    private void loggedIn(ChannelHandlerContext ctx) {
        String databaseName = startup.database();
        LogicalDatabase database = context.database(databaseName);
        if (database == null) {
            fatal(ctx, "3D000", "database \"" + databaseName + "\" does not exist");
            return;
        }
        SessionSettings settings;
        Map<String, String> parameters = startup.parameters();
        String timeZone = parameterValue(parameters, "TimeZone");
        boolean relayed = relays(database, startup.dialect());
        try {
            settings = startupSettings(parameters, !relayed);
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
        if (relayed) {
            ClientEncoding encoding = clientEncoding();
            if (!encoding.name().equals("UTF8")) {
                // Every connection the session uses gets its client_encoding: the backend converts.
                settings = settings.with("client_encoding", encoding.name());
            }
            ctx.pipeline().get(PgFrontendDecoder.class).textCharset(java.nio.charset.StandardCharsets.ISO_8859_1);
            relay = new io.ashlar.frontend.relay.RelaySession(ctx.channel(),
                    database.defaultDataSource().links().on(ctx.channel().eventLoop()), settings, processId,
                    () -> context.unregister(processId));
            context.register(processId, relay, secretKey);
        } else {
            backend = BackendSession.open(database, settings, ctx.channel().eventLoop(), identity(ctx, database));
            session = new FrontendSession(ctx.channel(), backend, context.sessionThreads(ctx.channel().eventLoop()), processId,
                    () -> context.unregister(processId), startup.dialect());
            context.register(processId, session, secretKey);
        }

        ctx.write(AuthenticationOk.INSTANCE);
        Map<String, String> backendParameters = database.backendParameters();
        String user = startup.user();
        for (String[] p : List.of(
                new String[] {"application_name", valueOr(parameterValue(parameters, "application_name"), "")},
                new String[] {"client_encoding", clientEncoding().name()},
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
        if (session != null) {
            session.start(context.sessionOwnsIo() ? ioFactory : null);
        }
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

    /**
     * @param plainTextOnly whether DateStyle must be ISO (a sharded database's merges, routing and binary
     *                      encoders read the backends' dates in that style; a relayed pooled database passes any)
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
        if (plainTextOnly && name.equalsIgnoreCase("DateStyle") && !dateStyle(value, "ISO, MDY").startsWith("ISO")) {
            throw new UnsupportedOperationException("DateStyle \"" + value + "\" is not supported by Ashlar on a sharded"
                    + " database yet: use ISO");
        }
        int existing = names.indexOf(name);
        if (existing >= 0) {
            values.set(existing, value);
        } else {
            names.add(name);
            values.add(value);
        }
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
        state = State.CLOSED;
        ctx.writeAndFlush(ErrorResponse.fatal(sqlState, message)).addListener(ChannelFutureListener.CLOSE);
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
        if (!(cause instanceof java.io.IOException)) {
            LOG.warn("connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        }
        ctx.close();
    }
}
