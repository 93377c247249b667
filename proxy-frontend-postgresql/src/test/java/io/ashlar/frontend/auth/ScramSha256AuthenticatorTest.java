package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.backend.config.ProxyUser;
import io.ashlar.protocol.AuthenticationSASL;
import io.ashlar.protocol.AuthenticationSASLContinue;
import io.ashlar.protocol.AuthenticationSASLFinal;
import io.ashlar.protocol.ClientDialect;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.shaded.com.ongres.scram.client.ScramClient;
import org.postgresql.shaded.com.ongres.scram.common.StringPreparation;
import org.postgresql.shaded.com.ongres.scram.common.exception.ScramException;

/**
 * The SCRAM-SHA-256 server against pgjdbc's own SCRAM client (the ongres library pgjdbc shades),
 * configured as pgjdbc configures it, plus the RFC 7677 test vector and malformed messages.
 */
final class ScramSha256AuthenticatorTest {

    private static PasswordVerifiers root;

    @BeforeAll
    static void deriveOnce() {
        root = PasswordVerifiers.forUser(new ProxyUser("root", "%", "s3cret", "scram-sha-256"));
    }

    private static ScramClient client(String password) {
        return ScramClient.builder()
                .advertisedMechanisms(List.of(ScramSha256Authenticator.MECHANISM))
                .username("*")
                .password(password.toCharArray())
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                .build();
    }

    /** SASLInitialResponse body: mechanism, Int32 length, client-first-message. */
    private static byte[] initialResponse(String mechanism, String clientFirst) {
        byte[] data = clientFirst.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        result.writeBytes(mechanism.getBytes(StandardCharsets.US_ASCII));
        result.write(0);
        result.write(data.length >>> 24);
        result.write(data.length >>> 16);
        result.write(data.length >>> 8);
        result.write(data.length);
        result.writeBytes(data);
        return result.toByteArray();
    }

    private static Authenticator authenticator(PasswordVerifiers verifiers) {
        Authenticator result = Authenticators.create(verifiers, ClientDialect.POSTGRESQL);
        assertInstanceOf(ScramSha256Authenticator.class, result);
        return result;
    }

    /** Runs pgjdbc's client against the server; returns the server's last step. */
    private static AuthStep exchange(PasswordVerifiers verifiers, ScramClient client) throws ScramException {
        Authenticator server = authenticator(verifiers);
        assertEquals(new AuthenticationSASL(List.of("SCRAM-SHA-256")), server.start());
        AuthStep first = server.onPassword(initialResponse("SCRAM-SHA-256", client.clientFirstMessage().toString()));
        AuthenticationSASLContinue challenge = (AuthenticationSASLContinue) ((AuthStep.Continue) first).message();
        client.serverFirstMessage(challenge.text());
        return server.onPassword(client.clientFinalMessage().toString().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void pgjdbcClientWithTheRightPassword() throws ScramException {
        ScramClient client = client("s3cret");
        AuthStep last = exchange(root, client);
        AuthStep.Success success = assertInstanceOf(AuthStep.Success.class, last);
        AuthenticationSASLFinal serverFinal = (AuthenticationSASLFinal) success.finalMessage().orElseThrow();
        assertDoesNotThrow(() -> client.serverFinalMessage(serverFinal.text()), "client accepts the server signature");
    }

    @Test
    void pgjdbcClientWithAWrongPassword() throws ScramException {
        AuthStep last = exchange(root, client("S3cret"));
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"root\""), last);
        assertEquals("FATAL", ((AuthStep.Failure) last).toErrorResponse().fields().severity());
    }

    @Test
    void pgjdbcClientOfferingChannelBindingSendsY() throws ScramException {
        ScramClient client = ScramClient.builder()
                .advertisedMechanisms(List.of(ScramSha256Authenticator.MECHANISM))
                .username("*")
                .password("s3cret".toCharArray())
                .channelBinding("tls-server-end-point", new byte[] {1, 2, 3})
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                .build();
        Authenticator server = authenticator(root);
        server.start();
        String clientFirst = client.clientFirstMessage().toString();
        assertEquals("y,,", clientFirst.substring(0, 3));
        AuthStep first = server.onPassword(initialResponse("SCRAM-SHA-256", clientFirst));
        client.serverFirstMessage(((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text());
        AuthStep last = server.onPassword(client.clientFinalMessage().toString().getBytes(StandardCharsets.UTF_8));
        assertInstanceOf(AuthStep.Success.class, last);
    }

    @Test
    void nonAsciiPasswordIsSaslPrepared() throws ScramException {
        PasswordVerifiers fullWidth = PasswordVerifiers.forUser(
                new ProxyUser("u", "%", "\uff50\uff41\uff53\uff53\u00a0word", "scram-sha-256"));
        assertInstanceOf(AuthStep.Success.class, exchange(fullWidth, client("pass word")));
        PasswordVerifiers accented = PasswordVerifiers.forUser(new ProxyUser("u", "%", "zażółć", "scram-sha-256"));
        assertInstanceOf(AuthStep.Success.class, exchange(accented, client("zażółć")));
    }

    /**
     * PostgreSQL accepts no empty password: the exchange runs, and fails (pgjdbc's client cannot send "";
     * PasswordAuthenticatorsTest sends it by MD5 and in clear text).
     */
    @Test
    void emptyPassword() throws ScramException {
        PasswordVerifiers empty = PasswordVerifiers.forUser(new ProxyUser("u", "%", "", "scram-sha-256"));
        for (String password : new String[] {"x"}) {
            ScramClient client = client(password);
            Authenticator server = Authenticators.create(empty, ClientDialect.POSTGRESQL);
            assertEquals(new AuthenticationSASL(List.of("SCRAM-SHA-256")), server.start());
            AuthStep first = server.onPassword(initialResponse("SCRAM-SHA-256", client.clientFirstMessage().toString()));
            client.serverFirstMessage(((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text());
            assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"u\""),
                    server.onPassword(client.clientFinalMessage().toString().getBytes(StandardCharsets.UTF_8)), password);
        }
    }

    @Test
    void initialResponseWithoutDataGetsAnEmptyChallengeFirst() throws ScramException {
        ScramClient client = client("s3cret");
        Authenticator server = authenticator(root);
        server.start();
        byte[] noData = {'S', 'C', 'R', 'A', 'M', '-', 'S', 'H', 'A', '-', '2', '5', '6', 0, -1, -1, -1, -1};
        AuthStep empty = server.onPassword(noData);
        assertEquals(new AuthStep.Continue(new AuthenticationSASLContinue(new byte[0])), empty);
        AuthStep first = server.onPassword(client.clientFirstMessage().toString().getBytes(StandardCharsets.UTF_8));
        client.serverFirstMessage(((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text());
        AuthStep last = server.onPassword(client.clientFinalMessage().toString().getBytes(StandardCharsets.UTF_8));
        assertInstanceOf(AuthStep.Success.class, last);
    }

    @Test
    void serverFirstMessageShape() {
        Authenticator server = new ScramSha256Authenticator("root", root.scram(), new Random(7));
        server.start();
        AuthStep first = server.onPassword(initialResponse("SCRAM-SHA-256", "n,,n=,r=abcdefghijklmnopqrstuvwx"));
        String text = ((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text();
        String[] parts = text.split(",");
        assertEquals(3, parts.length, text);
        assertEquals("r=abcdefghijklmnopqrstuvwx", parts[0].substring(0, 26));
        assertEquals(2 + 24 + 24, parts[0].length(), "client nonce + 18 random bytes in base64");
        assertEquals(16, Base64.getDecoder().decode(parts[1].substring(2)).length, "16-byte salt");
        assertEquals("i=4096", parts[2]);
    }

    @Test
    void wrongMechanism() {
        Authenticator server = authenticator(root);
        server.start();
        assertEquals(new AuthStep.Failure("08P01", "client selected an invalid SASL authentication mechanism"),
                server.onPassword(initialResponse("SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc")));
    }

    @Test
    void malformedClientFirstMessages() {
        assertFailure("08P01", "n,,x=,r=abc");
        assertFailure("08P01", "p=tls-server-end-point,,n=,r=abc");
        assertFailure("08P01", "q,,n=,r=abc");
        assertFailure("08P01", "n,,n=");
        assertFailure("08P01", "n,,n=,r=");
        assertFailure("08P01", "");
        assertFailure("0A000", "n,a=admin,n=,r=abc");
        assertFailure("0A000", "n,,m=ext,n=,r=abc");
        Authenticator server = authenticator(root);
        server.start();
        assertEquals(new AuthStep.Failure("08P01", "invalid SASL authentication message"),
                server.onPassword(new byte[] {'S', 'C', 'R', 'A', 'M', '-', 'S', 'H', 'A', '-', '2', '5', '6', 0, 0, 0, 0,
                        99, 'n'}));
    }

    private static void assertFailure(String sqlState, String clientFirst) {
        Authenticator server = authenticator(root);
        server.start();
        AuthStep step = server.onPassword(initialResponse("SCRAM-SHA-256", clientFirst));
        AuthStep.Failure failure = assertInstanceOf(AuthStep.Failure.class, step, clientFirst);
        assertEquals(sqlState, failure.sqlState(), () -> clientFirst + ": " + failure);
    }

    @Test
    void malformedClientFinalMessages() {
        String nonceAttribute = "r=NONCE";                 // replaced by the real nonce of each exchange
        for (String clientFinal : List.of(
                "c=biws," + nonceAttribute,                                          // no proof
                "c=biws,r=wrong,p=" + Base64.getEncoder().encodeToString(new byte[32]), // nonce mismatch
                "c=biws," + nonceAttribute + ",p=!!notbase64",                       // proof not base64
                "c=biws," + nonceAttribute + ",p=" + Base64.getEncoder().encodeToString(new byte[8]), // short proof
                "r=x,c=biws")) {                                                     // attributes out of order
            Authenticator server = authenticator(root);
            server.start();
            String nonce = startedNonce(server);
            String message = clientFinal.replace(nonceAttribute, "r=" + nonce);
            AuthStep.Failure failure = assertInstanceOf(AuthStep.Failure.class,
                    server.onPassword(message.getBytes(StandardCharsets.UTF_8)), message);
            assertEquals("08P01", failure.sqlState(), message);
        }
    }

    @Test
    void channelBindingMustMatchTheGs2Header() {
        Authenticator server = authenticator(root);
        server.start();
        String nonce = startedNonce(server);
        String clientFinal = "c=" + Base64.getEncoder().encodeToString("y,,".getBytes(StandardCharsets.US_ASCII))
                + ",r=" + nonce + ",p=" + Base64.getEncoder().encodeToString(new byte[32]);
        assertEquals(new AuthStep.Failure("08P01", "unexpected SCRAM channel-binding attribute in client-final-message"),
                server.onPassword(clientFinal.getBytes(StandardCharsets.US_ASCII)));
    }

    /** tls-server-end-point of the certificate the client's TLS session shows (32 bytes of SHA-256). */
    private static final byte[] CERTIFICATE_HASH = Crypto.sha256("the proxy's certificate".getBytes(StandardCharsets.US_ASCII));

    private static ScramClient plusClient(String password, byte[] certificateHash) {
        return ScramClient.builder()
                .advertisedMechanisms(List.of(ScramSha256Authenticator.MECHANISM_PLUS, ScramSha256Authenticator.MECHANISM))
                .username("*")
                .password(password.toCharArray())
                .channelBinding("tls-server-end-point", certificateHash)
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                .build();
    }

    private static Authenticator overTls() {
        Authenticator result = Authenticators.create(root, ClientDialect.POSTGRESQL, CERTIFICATE_HASH);
        assertEquals(new AuthenticationSASL(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256")), result.start(),
                "over TLS, -PLUS first, as PostgreSQL lists them");
        return result;
    }

    private static AuthStep plusExchange(Authenticator server, ScramClient client) throws ScramException {
        assertEquals(ScramSha256Authenticator.MECHANISM_PLUS, client.getScramMechanism().getName());
        String clientFirst = client.clientFirstMessage().toString();
        assertEquals("p=tls-server-end-point,,", clientFirst.substring(0, 24));
        AuthStep first = server.onPassword(initialResponse(ScramSha256Authenticator.MECHANISM_PLUS, clientFirst));
        client.serverFirstMessage(((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text());
        return server.onPassword(client.clientFinalMessage().toString().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void scramSha256PlusBindsTheLoginToTheCertificate() throws ScramException {
        ScramClient client = plusClient("s3cret", CERTIFICATE_HASH);
        AuthStep.Success success = assertInstanceOf(AuthStep.Success.class, plusExchange(overTls(), client));
        AuthenticationSASLFinal serverFinal = (AuthenticationSASLFinal) success.finalMessage().orElseThrow();
        assertDoesNotThrow(() -> client.serverFinalMessage(serverFinal.text()), "client accepts the server signature");
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"root\""),
                plusExchange(overTls(), plusClient("wrong", CERTIFICATE_HASH)));
    }

    /** A client that saw another certificate (a man in the middle's) is refused even with the right password. */
    @Test
    void scramSha256PlusRefusesAnotherCertificate() throws ScramException {
        byte[] otherCertificate = Crypto.sha256("a man in the middle's certificate".getBytes(StandardCharsets.US_ASCII));
        assertEquals(new AuthStep.Failure("28000", "SCRAM channel binding check failed"),
                plusExchange(overTls(), plusClient("s3cret", otherCertificate)));
    }

    @Test
    void channelBindingNegotiationOverTls() {
        // The client could bind but was told the server cannot: someone removed -PLUS from the offer.
        Authenticator downgraded = overTls();
        assertEquals(new AuthStep.Failure("28000", "SCRAM channel binding negotiation error", "The client supports SCRAM"
                        + " channel binding but thinks the server does not.  However, this server does support channel binding."),
                downgraded.onPassword(initialResponse("SCRAM-SHA-256", "y,,n=,r=abc")));
        Authenticator unbound = overTls();
        assertInstanceOf(AuthStep.Continue.class, unbound.onPassword(initialResponse("SCRAM-SHA-256", "n,,n=,r=abc")),
                "a client without channel binding may still log in over TLS");
        Authenticator plusWithoutData = overTls();
        assertEquals(new AuthStep.Failure("08P01", "malformed SCRAM message", "The client selected SCRAM-SHA-256-PLUS, but"
                        + " the SCRAM message does not include channel binding data."),
                plusWithoutData.onPassword(initialResponse("SCRAM-SHA-256-PLUS", "n,,n=,r=abc")));
        Authenticator otherType = overTls();
        assertEquals(new AuthStep.Failure("08P01", "unsupported SCRAM channel-binding type \"tls-unique\""),
                otherType.onPassword(initialResponse("SCRAM-SHA-256-PLUS", "p=tls-unique,,n=,r=abc")));
        Authenticator authzid = overTls();
        assertEquals("0A000", ((AuthStep.Failure) authzid.onPassword(initialResponse("SCRAM-SHA-256-PLUS",
                "p=tls-server-end-point,a=admin,n=,r=abc"))).sqlState());
    }

    @Test
    void passwordMessagesOutOfTurnAreRefused() throws ScramException {
        Authenticator server = authenticator(root);
        assertInstanceOf(AuthStep.Failure.class, server.onPassword(new byte[] {0}), "before start");
        ScramClient client = client("s3cret");
        assertInstanceOf(AuthStep.Success.class, exchange(root, client));
        Authenticator finished = authenticator(root);
        finished.start();
        finished.onPassword(initialResponse("SCRAM-SHA-256", "q,,"));
        assertEquals(new AuthStep.Failure("08P01", "unexpected SASL response"), finished.onPassword(new byte[] {0}));
    }

    @Test
    void rfc7677TestVector() {
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        ScramSecret secret = ScramSecret.derive("pencil", salt, 4096);
        String authMessage = "n=user,r=rOprNGfwEbeRWgbNEkqO"
                + ",r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
                + ",c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        byte[] proof = Base64.getDecoder().decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        byte[] clientKey = Crypto.xor(proof, Crypto.hmacSha256(secret.storedKey(), authMessage));
        assertArrayEquals(secret.storedKey(), Crypto.sha256(clientKey));
        assertEquals("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
                Base64.getEncoder().encodeToString(Crypto.hmacSha256(secret.serverKey(), authMessage)));
    }

    @Test
    void unknownConfiguredMethodIsRefusedAtLoad() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PasswordVerifiers.forUser(
                new ProxyUser("x", "%", "y", "trust")));
        assertEquals("user x: unsupported authenticationMethod 'trust', expected scram-sha-256, md5 or password",
                e.getMessage());
    }

    private static String startedNonce(Authenticator server) {
        AuthStep first = server.onPassword(initialResponse("SCRAM-SHA-256", "n,,n=,r=clientnonce"));
        String text = ((AuthenticationSASLContinue) ((AuthStep.Continue) first).message()).text();
        return text.substring(2, text.indexOf(','));
    }
}
