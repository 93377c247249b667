package io.ashlar.backend.session;

/**
 * Who a client session is, as PostgreSQL's session information functions would tell it: the user it logged in as,
 * the database it asked for, and the proxy's address and port it connected to.
 *
 * @param user          the proxy user
 * @param database      the logical database
 * @param serverAddress the proxy's address of the client's connection, null for a Unix socket
 * @param serverPort    the proxy's port of the client's connection, 0 for a Unix socket
 * @see <a href="https://www.postgresql.org/docs/current/functions-info.html">Session Information Functions</a>
 */
public record SessionIdentity(String user, String database, String serverAddress, int serverPort) {
}
