package io.ashlar.frontend.server;

import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.frontend.auth.DatabaseGrants;
import io.ashlar.frontend.auth.LoginMethod;
import io.ashlar.frontend.auth.LoginUser;
import io.ashlar.frontend.auth.PasswordVerifiers;
import io.ashlar.frontend.tls.FrontendTls;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.MessageMemory;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What every client connection of one proxy shares: the users who may log in, the logical
 * databases, the rules at the door (connection limit, login timeout, TLS), the live sessions (for
 * CancelRequest), and the virtual-thread executor sessions run on. Passed to each connection
 * handler; no global state.
 */
public final class FrontendContext implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FrontendContext.class);

    private final Map<String, LoginUser> users;
    private volatile Map<String, LogicalDatabase> databases;
    private final FrontendPolicy policy;
    /** What clients' large messages hold, shared by every connection. */
    private final MessageMemory messageMemory;
    private final Optional<FrontendTls> tls;
    /** The secret unknown users' made-up salts are derived from, made once per start and never sent. */
    private final byte[] unknownUserSecret = new byte[32];
    /**
     * Sessions that run their statements as plain method calls (sharded databases, openGauss
     * clients) get a virtual thread on their client's event loop.
     */
    private final LoopThreads loopThreads = new LoopThreads();
    private final Map<Integer, Registered> sessions = new ConcurrentHashMap<>();
    /**
     * The process ids clients are told (BackendKeyData) lie above any a Linux kernel gives (pid_max is at most 2^22), so
     * that a client that passes its own to {@code pg_cancel_backend} or {@code pg_terminate_backend} (Knex's query
     * timeout with cancel does) can never hit another backend process of a data source that happens to have it: it gets
     * PostgreSQL's "is not a PostgreSQL backend process" and false. They were drawn from 1,000 to 100,000.
     */
    private static final int FIRST_PROCESS_ID = 1 << 22;
    private final AtomicInteger nextProcessId = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 24));
    private final AtomicInteger connections = new AtomicInteger();
    /** Logins that succeeded, per client dialect and exchange: [dialect.ordinal() * methods + method.ordinal()]. */
    private final LongAdder[] logins = new LongAdder[ClientDialect.values().length * LoginMethod.values().length];

    /**
     * The stack of the event loops' threads, which the sessions' virtual threads run on (a mounted
     * virtual thread's frames are on its carrier's stack): room for a statement nested as deep as
     * the analyzer reads, and for what is done with it after. Reserved, not taken, until used.
     */
    public static final long SESSION_STACK_BYTES = 16L << 20;

    /**
     * A live session, the secret a CancelRequest must present, its client's connection and who the client is (null
     * where unknown).
     */
    record Registered(ClientSession session, int secretKey, io.netty.channel.Channel channel,
                      io.ashlar.frontend.admin.ClientInfo info) {
    }

    /** What a session is told when the proxy ends it, as PostgreSQL tells its sessions at a smart or fast shutdown. */
    private static final io.ashlar.protocol.ErrorResponse ADMIN_SHUTDOWN = io.ashlar.protocol.ErrorResponse.fatal("57P01",
            "terminating connection due to administrator command");
    private volatile boolean stopping;

    /**
     * @param users the configured users by name
     * @param databases logical databases by name
     * @param policy the rules at the door
     * @param tls TLS for clients, empty to answer every SSLRequest with 'N'; closed with this context
     */
    public FrontendContext(Map<String, LoginUser> users, Map<String, LogicalDatabase> databases, FrontendPolicy policy,
                           Optional<FrontendTls> tls) {
        if (policy.tlsRequired() && tls.isEmpty()) {
            throw new IllegalArgumentException("TLS is required but not set up");
        }
        this.users = Map.copyOf(users);
        this.databases = Map.copyOf(databases);
        this.policy = policy;
        this.messageMemory = new MessageMemory(policy.maxMessageBytes(), policy.messageMemoryBytes());
        this.tls = tls;
        new SecureRandom().nextBytes(unknownUserSecret);
        for (int i = 0; i < logins.length; i++) {
            logins[i] = new LongAdder();
        }
    }

    /** The configured user of that name, or null. */
    LoginUser user(String name) {
        return users.get(name);
    }

    /**
     * A user nobody configured: it goes through the exchange of users who name no method, with
     * made-up secrets that are the same for the same name (PostgreSQL's mock authentication), and
     * never logs in.
     */
    LoginUser unknownUser(String name) {
        return new LoginUser(PasswordVerifiers.forUnknownUser(name, policy.unknownUserMethod(), unknownUserSecret),
                false, DatabaseGrants.ALL);
    }

    FrontendPolicy policy() {
        return policy;
    }

    /** The memory clients' large messages may take, shared by every connection. */
    public MessageMemory messageMemory() {
        return messageMemory;
    }

    /** TLS for clients, empty when SSLRequests are refused. */
    Optional<FrontendTls> tls() {
        return tls;
    }

    LogicalDatabase database(String name) {
        return databases.get(name);
    }

    public Map<String, LogicalDatabase> databases() {
        return databases;
    }

    /** Swaps in a new set of logical databases; sessions already open keep theirs. */
    public void databases(Map<String, LogicalDatabase> newDatabases) {
        this.databases = Map.copyOf(newDatabases);
    }

    /** The threads of sessions whose clients are on {@code loop}. */
    ThreadFactory sessionThreads(io.netty.channel.EventLoop loop) {
        return loopThreads.on(loop);
    }

    int nextProcessId() {
        return FIRST_PROCESS_ID + Math.floorMod(nextProcessId.getAndIncrement(), Integer.MAX_VALUE - FIRST_PROCESS_ID);
    }

    void register(int processId, ClientSession session, int secretKey, io.netty.channel.Channel channel,
                  io.ashlar.frontend.admin.ClientInfo info) {
        sessions.put(processId, new Registered(session, secretKey, channel, info));
    }

    /** The logged-in clients, for SHOW CLIENTS and the metrics. */
    public java.util.List<io.ashlar.frontend.admin.ClientInfo> clients() {
        java.util.List<io.ashlar.frontend.admin.ClientInfo> result = new java.util.ArrayList<>(sessions.size());
        for (Registered each : sessions.values()) {
            if (each.info() != null) {
                result.add(each.info());
            }
        }
        result.sort(java.util.Comparator.comparingLong(io.ashlar.frontend.admin.ClientInfo::connectedMillis));
        return result;
    }

    /** What the admin commands see of the proxy. */
    io.ashlar.frontend.admin.AdminConsole.Proxy adminView() {
        return new io.ashlar.frontend.admin.AdminConsole.Proxy() {
            @Override
            public Map<String, LogicalDatabase> databases() {
                return databases;
            }

            @Override
            public java.util.Collection<io.ashlar.frontend.admin.ClientInfo> clients() {
                return FrontendContext.this.clients();
            }
        };
    }

    void unregister(int processId) {
        sessions.remove(processId);
    }

    /** Handles a CancelRequest: cancels that session's running statement if the key matches. */
    void cancel(int processId, int secretKey) {
        Registered registered = sessions.get(processId);
        if (registered != null && registered.secretKey() == secretKey) {
            registered.session().cancel();
        }
    }

    /** Counts a login that succeeded. */
    void loggedIn(ClientDialect dialect, LoginMethod method) {
        logins[dialect.ordinal() * LoginMethod.values().length + method.ordinal()].increment();
    }

    /** How many clients of a dialect logged in with an exchange since the proxy started. */
    public long logins(ClientDialect dialect, LoginMethod method) {
        return logins[dialect.ordinal() * LoginMethod.values().length + method.ordinal()].sum();
    }

    public int sessionCount() {
        return sessions.size();
    }

    /** The proxy stops: logins that complete from now on are refused (57P03), as PostgreSQL refuses them. */
    void stopping() {
        stopping = true;
    }

    boolean isStopping() {
        return stopping;
    }

    /**
     * Ends the sessions that are idle (between statements, outside a transaction) with FATAL 57P01, as PostgreSQL's
     * shutdown ends its sessions; with {@code all}, the busy ones too. A session whose client connection closes
     * cancels what it still runs on the backends, rolls back what it had open and gives its connections back.
     */
    void terminate(boolean all) {
        for (Registered registered : sessions.values()) {
            ClientSession session = registered.session();
            io.netty.channel.Channel channel = registered.channel();
            try {
                // Looked at on the connection's loop, where a relayed session's state lives: a statement that
                // arrived meanwhile keeps its session until it is idle again.
                channel.eventLoop().execute(() -> {
                    if (all) {
                        end(channel);
                    } else {
                        session.endIfQuiet(() -> end(channel));
                    }
                });
            } catch (RuntimeException e) {
                // Its loop has stopped: the connection is closed with it.
            }
        }
    }

    /** Tells a client its session ends because the proxy stops, and closes its connection. */
    static void end(io.netty.channel.Channel channel) {
        if (channel.isActive()) {
            ClientChannels.closeWith(channel, ADMIN_SHUTDOWN);
        }
    }

    /** Cancels what every session runs (a session whose thread drives its own connection sees its end only then). */
    void cancelAll() {
        for (Registered registered : sessions.values()) {
            registered.session().cancel();
        }
    }

    /** Counts a new client connection; false when the limit is reached. */
    boolean connectionOpened() {
        int now = connections.incrementAndGet();
        if (now > policy.maxConnections()) {
            connections.decrementAndGet();
            return false;
        }
        return true;
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    @Override
    public void close() {
        // Session threads end with their sessions.
        tls.ifPresent(FrontendTls::close);
    }
}
