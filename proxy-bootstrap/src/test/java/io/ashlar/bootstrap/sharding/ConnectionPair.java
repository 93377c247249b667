package io.ashlar.bootstrap.sharding;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A client's connection through the proxy and the same client's connection to the reference database, with the same
 * pgjdbc settings. A connection that a failure closed (a socket timeout, a proxy that hung up) is opened again on
 * next use, so that one bug does not fail every entry after it.
 */
final class ConnectionPair implements AutoCloseable {

    /** Opens a connection with extra URL parameters. */
    interface Opener {
        Connection open(String parameters) throws SQLException;
    }

    private final Opener proxyOpener;
    private final Opener referenceOpener;
    private final String parameters;
    private final boolean autoCommit;
    private Connection proxy;
    private Connection reference;

    ConnectionPair(ShardedDatabases databases, String parameters) {
        this(databases, parameters, true);
    }

    /**
     * @param autoCommit false to run every statement in a transaction the caller ends with {@link #rollback()} (pgjdbc
     *                   then reads results in pieces of {@code defaultRowFetchSize} rows, through a suspended portal)
     */
    ConnectionPair(ShardedDatabases databases, String parameters, boolean autoCommit) {
        this(databases::proxy, databases::reference, parameters, autoCommit);
    }

    /** A pair over another layout's proxy and reference. */
    ConnectionPair(Opener proxy, Opener reference, String parameters, boolean autoCommit) {
        this.proxyOpener = proxy;
        this.referenceOpener = reference;
        this.parameters = parameters;
        this.autoCommit = autoCommit;
    }

    /** What the pair's URLs add to the default client settings, for test names. */
    String parameters() {
        return parameters;
    }

    Connection proxy() throws SQLException {
        if (proxy == null || proxy.isClosed()) {
            proxy = proxyOpener.open(parameters);
            proxy.setAutoCommit(autoCommit);
        }
        return proxy;
    }

    Connection reference() throws SQLException {
        if (reference == null || reference.isClosed()) {
            reference = referenceOpener.open(parameters);
            reference.setAutoCommit(autoCommit);
        }
        return reference;
    }

    /** Ends the transactions of a pair that does not autocommit; a failure here fails the entry that caused it. */
    void rollback() throws SQLException {
        if (!autoCommit) {
            proxy().rollback();
            reference().rollback();
        }
    }

    /** Closes both; the next use opens fresh sessions. */
    @Override
    public void close() {
        for (Connection each : new Connection[] {proxy, reference}) {
            if (each != null) {
                try {
                    each.close();
                } catch (SQLException e) {
                    // the session is being thrown away; nothing to do
                }
            }
        }
        proxy = null;
        reference = null;
    }
}
