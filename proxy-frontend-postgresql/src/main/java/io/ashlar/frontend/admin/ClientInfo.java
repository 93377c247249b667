package io.ashlar.frontend.admin;

/**
 * One logged-in client, as SHOW CLIENTS lists it.
 *
 * @param processId the process id the client was given (BackendKeyData), pgbouncer's {@code ptr}
 * @param user the proxy user
 * @param database the logical database
 * @param address the client's address
 * @param port the client's port
 * @param localAddress the proxy's address the client reached
 * @param localPort the proxy's port the client reached
 * @param connectedMillis when it logged in (milliseconds since the epoch)
 * @param tls whether the connection is encrypted
 * @param applicationName its {@code application_name} at login
 * @param quiet whether it is between statements outside a transaction now
 */
public record ClientInfo(int processId, String user, String database, String address, int port, String localAddress,
                         int localPort, long connectedMillis, boolean tls, String applicationName,
                         java.util.function.BooleanSupplier quiet) {
}
