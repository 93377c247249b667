package io.ashlar.frontend.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.frontend.auth.AuthenticationMethod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connection limit the proxy takes when none is configured, and the addresses of proxy-bind-address. */
final class FrontendPolicyTest {

    @Test
    void withoutALimitConfiguredClientsGetHalfTheOpenFilesAtMostTenThousand() {
        assertEquals(512, FrontendPolicy.defaultMaxConnections(1024), "ulimit -n 1024: half for the clients");
        assertEquals(10_000, FrontendPolicy.defaultMaxConnections(20_000));
        assertEquals(10_000, FrontendPolicy.defaultMaxConnections(1_048_576), "capped");
        assertEquals(1, FrontendPolicy.defaultMaxConnections(1));
        assertEquals(10_000, FrontendPolicy.defaultMaxConnections(-1), "unknown limit (not Unix)");
        long here = FrontendPolicy.openFileLimit();
        assertTrue(here > 0, "this JVM reports its open-file limit: " + here);
    }

    @Test
    void aPolicyIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> new FrontendPolicy(0, 1000, 0, false, AuthenticationMethod.MD5));
        assertThrows(IllegalArgumentException.class, () -> new FrontendPolicy(1, 0, 0, false, AuthenticationMethod.MD5));
        assertThrows(IllegalArgumentException.class, () -> new FrontendPolicy(1, 1000, -1, false, AuthenticationMethod.MD5));
    }

    @Test
    void listenAddressesAreReadAsPostgresReadsListenAddresses() {
        assertEquals(List.of("127.0.0.1"), PgServer.addresses("127.0.0.1"));
        assertEquals(List.of("10.0.0.5", "127.0.0.1", "::1"), PgServer.addresses(" 10.0.0.5 ,127.0.0.1,, ::1,10.0.0.5"));
        assertEquals(List.of("*"), PgServer.addresses("*"));
        assertThrows(IllegalArgumentException.class, () -> PgServer.addresses(" , "));
    }
}
