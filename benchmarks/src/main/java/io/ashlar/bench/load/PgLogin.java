package io.ashlar.bench.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The few frontend messages the load drivers of {@code benchmarks/many-clients.sh} and
 * {@code benchmarks/stalled-reader.sh} send, built by hand so that a driver holds thousands of
 * connections on one thread with no driver library in between: StartupMessage, PasswordMessage
 * (clear text or MD5) and Query, as in the PostgreSQL protocol docs,
 * <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">55.7 Message
 * Formats</a> and <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">55.2.1
 * Start-up</a>. SCRAM is not spoken: Ashlar's benchmark users log in with MD5 (its default) and
 * the throwaway PostgreSQL trusts loopback.
 */
final class PgLogin {

    /** AuthenticationOk, AuthenticationCleartextPassword, AuthenticationMD5Password, AuthenticationSASL. */
    static final int AUTH_OK = 0;
    static final int AUTH_CLEARTEXT = 3;
    static final int AUTH_MD5 = 5;
    static final int AUTH_SASL = 10;

    private static final int PROTOCOL_3_0 = 196_608;

    private PgLogin() {
    }

    static ByteBuffer startup(String user, String database, String applicationName) {
        byte[] body = ("user\0" + user + "\0database\0" + database + "\0application_name\0" + applicationName + "\0\0")
                .getBytes(StandardCharsets.UTF_8);
        ByteBuffer result = ByteBuffer.allocate(8 + body.length);
        result.putInt(8 + body.length).putInt(PROTOCOL_3_0).put(body).flip();
        return result;
    }

    /**
     * The PasswordMessage answering an authentication request, or an exception naming the method
     * this driver cannot answer.
     *
     * @param salt the 4 bytes of AuthenticationMD5Password (ignored for clear text)
     */
    static ByteBuffer password(int method, byte[] salt, String user, String password) {
        String text = switch (method) {
            case AUTH_CLEARTEXT -> password;
            case AUTH_MD5 -> "md5" + md5Hex(concat(md5Hex(concat(bytes(password), bytes(user))).getBytes(StandardCharsets.US_ASCII), salt));
            case AUTH_SASL -> throw new IllegalStateException("the server asks for SCRAM (AuthenticationSASL): this driver speaks clear text and MD5 only");
            default -> throw new IllegalStateException("authentication request " + method + " is not supported by this driver");
        };
        byte[] body = bytes(text);
        ByteBuffer result = ByteBuffer.allocate(1 + 4 + body.length + 1);
        result.put((byte) 'p').putInt(4 + body.length + 1).put(body).put((byte) 0).flip();
        return result;
    }

    /** A simple-protocol Query message. */
    static byte[] query(String sql) {
        byte[] text = bytes(sql);
        ByteBuffer result = ByteBuffer.allocate(1 + 4 + text.length + 1);
        result.put((byte) 'Q').putInt(4 + text.length + 1).put(text).put((byte) 0);
        return result.array();
    }

    /** Terminate. */
    static byte[] terminate() {
        return new byte[] {'X', 0, 0, 0, 4};
    }

    /** The M (message) field of an ErrorResponse body, with its SQLSTATE (C). */
    static String errorText(byte[] body, int offset, int length) {
        String message = "";
        String code = "";
        int i = offset;
        int end = offset + length;
        while (i < end && body[i] != 0) {
            byte field = body[i++];
            int start = i;
            while (i < end && body[i] != 0) {
                i++;
            }
            String value = new String(body, start, i - start, StandardCharsets.UTF_8);
            i++;
            if (field == 'M') {
                message = value;
            } else if (field == 'C') {
                code = value;
            }
        }
        return code + " " + message;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] result = new byte[a.length + b.length];
        System.arraycopy(a, 0, result, 0, a.length);
        System.arraycopy(b, 0, result, a.length, b.length);
        return result;
    }

    private static String md5Hex(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no MD5 in this JDK", e);
        }
    }
}
