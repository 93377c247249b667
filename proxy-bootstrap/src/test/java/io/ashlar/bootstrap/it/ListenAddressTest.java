package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the proxy listens: 127.0.0.1 unless {@code proxy-bind-address} says otherwise (PostgreSQL's
 * {@code listen_addresses} is {@code localhost}), a comma-separated list of addresses, or {@code *}.
 * Linux routes all of 127.0.0.0/8 to the loopback interface, so 127.0.0.2 and 127.0.0.3 stand for the
 * machine's other addresses.
 */
final class ListenAddressTest {

    @Test
    void onlyTheLoopbackAddressByDefault() throws Exception {
        try (ProxiedPostgres proxy = ProxiedPostgres.startWithServerYaml("authority:\n  users: [root@%:root]\n")) {
            assertAccepts("127.0.0.1", proxy.proxyPort());
            assertRefuses("127.0.0.2", proxy.proxyPort());
        }
    }

    @Test
    void theAddressesOfTheList() throws Exception {
        try (ProxiedPostgres proxy = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users: [root@%:root]
                props:
                  proxy-bind-address: 127.0.0.2, 127.0.0.3
                """)) {
            assertAccepts("127.0.0.2", proxy.proxyPort());
            assertAccepts("127.0.0.3", proxy.proxyPort());
            assertRefuses("127.0.0.1", proxy.proxyPort());
        }
    }

    @Test
    void everyInterface() throws Exception {
        try (ProxiedPostgres proxy = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users: [root@%:root]
                props:
                  proxy-bind-address: "*"
                """)) {
            for (String each : List.of("127.0.0.1", "127.0.0.2")) {
                assertAccepts(each, proxy.proxyPort());
            }
        }
    }

    @Test
    void anAddressThatDoesNotResolveStopsTheStart() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> ProxiedPostgres.startWithServerYaml("""
                authority:
                  users: [root@%:root]
                props:
                  proxy-bind-address: no-such-host.invalid
                """).close());
        assertEquals("cannot listen on no-such-host.invalid: no such host", e.getMessage());
    }

    /** The proxy answers a connection there: an SSLRequest gets its one-byte answer. */
    private static void assertAccepts(String address, int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 10_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(RawConnection.SSL_REQUEST);
            assertEquals('N', socket.getInputStream().read(), address);
        }
    }

    private static void assertRefuses(String address, int port) {
        IOException e = assertThrows(IOException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(address, port), 10_000);
            }
        }, "the proxy must not listen on " + address);
        assertTrue(e instanceof ConnectException, e.toString());
    }
}
