package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A PostgreSQL protocol client written by hand over a plain socket: the test decides every byte it
 * sends (valid or not) and sees every message that comes back. Logs in with a startup packet and,
 * when asked, a clear-text password; nothing else of authentication is implemented.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">PostgreSQL: Message Formats</a>
 */
final class RawConnection implements AutoCloseable {

    /** One backend message as read off the socket. */
    record Message(char type, byte[] body) {

        /** The fields of an ErrorResponse or NoticeResponse by their code. */
        Map<Character, String> fields() {
            Map<Character, String> result = new LinkedHashMap<>();
            int i = 0;
            while (i < body.length && body[i] != 0) {
                char code = (char) body[i++];
                int end = i;
                while (body[end] != 0) {
                    end++;
                }
                result.put(code, new String(body, i, end - i, StandardCharsets.UTF_8));
                i = end + 1;
            }
            return result;
        }

        /** The body as text up to its first zero byte (a CommandComplete tag, a ParameterStatus name). */
        String text() {
            int end = 0;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            return new String(body, 0, end, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return type == 'E' || type == 'N' ? type + " " + fields() : type + " " + HexFormat.of().formatHex(body);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    RawConnection(int port) throws IOException {
        this(plainSocket(port));
    }

    private RawConnection(Socket socket) throws IOException {
        this.socket = socket;
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    private static Socket plainSocket(int port) throws IOException {
        Socket result = new Socket("127.0.0.1", port);
        result.setSoTimeout(20_000);
        result.setTcpNoDelay(true);
        return result;
    }

    /** SSLRequest: Int32 8, Int32 80877103. */
    static final byte[] SSL_REQUEST = {0, 0, 0, 8, 0x04, (byte) 0xd2, 0x16, 0x2f};

    /**
     * A connection that sent an SSLRequest, got 'S' and completed a TLS handshake trusting any
     * certificate (the test looks at it with {@link #peerCertificate()}); {@code beforeHandshake} is
     * sent in the clear right behind the SSLRequest, in the same write.
     */
    static RawConnection overTls(int port, byte[] beforeHandshake) throws IOException {
        Socket plain = plainSocket(port);
        plain.getOutputStream().write(concat(SSL_REQUEST, beforeHandshake));
        int answer = plain.getInputStream().read();
        if (answer != 'S') {
            plain.close();
            throw new AssertionError("expected 'S' to the SSLRequest, got " + answer);
        }
        try {
            javax.net.ssl.SSLContext trustAll = javax.net.ssl.SSLContext.getInstance("TLS");
            trustAll.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
                }

                @Override
                public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                    return new java.security.cert.X509Certificate[0];
                }
            }}, null);
            javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) trustAll.getSocketFactory()
                    .createSocket(plain, "127.0.0.1", port, true);
            tls.startHandshake();
            return new RawConnection(tls);
        } catch (java.security.GeneralSecurityException e) {
            plain.close();
            throw new IOException(e);
        }
    }

    /** The certificate the server showed in the TLS handshake. */
    java.security.cert.X509Certificate peerCertificate() throws IOException {
        return (java.security.cert.X509Certificate) ((javax.net.ssl.SSLSocket) socket).getSession().getPeerCertificates()[0];
    }

    /** How long a read waits for the server before it fails with a {@link java.net.SocketTimeoutException}. */
    void readTimeout(int milliseconds) throws IOException {
        socket.setSoTimeout(milliseconds);
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** One byte, as the answer to an SSLRequest comes: no type, no length. */
    int readByte() throws IOException {
        return in.read();
    }

    /** The next message, or null at end of stream (or a reset connection). */
    Message read() throws IOException {
        int type;
        try {
            type = in.read();
        } catch (SocketException | javax.net.ssl.SSLException e) {
            return null;
        }
        if (type < 0) {
            return null;
        }
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message((char) type, body);
    }

    /** The messages' type bytes in order ({@code "TDCZ"}): what an exchange answered, at a glance. */
    static String types(List<Message> messages) {
        StringBuilder result = new StringBuilder();
        for (Message each : messages) {
            result.append(each.type());
        }
        return result.toString();
    }

    /** Everything the server sends until it closes the connection; a message cut short ends with type '!'. */
    List<Message> readUntilClosed() throws IOException {
        List<Message> result = new ArrayList<>();
        while (true) {
            Message message;
            try {
                message = read();
            } catch (EOFException e) {
                result.add(new Message('!', new byte[0]));
                return result;
            }
            if (message == null) {
                return result;
            }
            result.add(message);
        }
    }

    /** Messages up to and including the next message of that type. */
    List<Message> readThrough(char last) throws IOException {
        List<Message> result = new ArrayList<>();
        while (true) {
            Message message = read();
            if (message == null) {
                throw new AssertionError("connection closed before a '" + last + "' message; got " + result);
            }
            result.add(message);
            if (message.type() == last) {
                return result;
            }
        }
    }

    /** Messages up to and including the next ReadyForQuery. */
    List<Message> readUntilReady() throws IOException {
        return readThrough('Z');
    }

    /**
     * Sends a startup packet, answers a clear-text password request if one comes, and reads up to
     * the first ReadyForQuery.
     *
     * @return the login messages after authentication (ParameterStatus, BackendKeyData, ReadyForQuery)
     */
    List<Message> logIn(String user, String database, String password) throws IOException {
        return logIn(user, database, password, Map.of());
    }

    /** The same, with more run-time parameters in the startup packet (DateStyle, options, ...). */
    List<Message> logIn(String user, String database, String password, Map<String, String> parameters) throws IOException {
        send(startupPacket(user, database, parameters));
        Message request = read();
        assertEquals('R', request.type(), () -> "expected an authentication request, got " + request);
        int code = ByteBuffer.wrap(request.body()).getInt();
        if (code == 3 || code == 5) {
            send(message('p', cString(code == 3 ? password : md5Password(user, password, java.util.Arrays.copyOfRange(request.body(), 4, 8)))));
            Message ok = read();
            assertEquals('R', ok.type(), () -> "expected AuthenticationOk, got " + ok);
            assertEquals(0, ByteBuffer.wrap(ok.body()).getInt(), "AuthenticationOk");
        } else {
            assertEquals(0, code, "AuthenticationOk, AuthenticationCleartextPassword or AuthenticationMD5Password");
        }
        return readUntilReady();
    }

    /** PostgreSQL's MD5 answer: "md5" + md5hex(md5hex(password + user) + salt). */
    private static String md5Password(String user, String password, byte[] salt) {
        try {
            java.security.MessageDigest md5 = java.security.MessageDigest.getInstance("MD5");
            byte[] inner = java.util.HexFormat.of().formatHex(md5.digest((password + user).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            md5.update(inner);
            md5.update(salt);
            return "md5" + java.util.HexFormat.of().formatHex(md5.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ------------------------------------------------------------------ message builders

    static byte[] cString(String value) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[text.length + 1];
        System.arraycopy(text, 0, result, 0, text.length);
        return result;
    }

    /** A typed message: Byte1 type, Int32 length counting itself, body. */
    static byte[] message(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream result = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            result.writeBytes(part);
        }
        return result.toByteArray();
    }

    /** StartupMessage for protocol 3.0 with UTF8 and a fixed application name. */
    static byte[] startupPacket(String user, String database) {
        return startupPacket(user, database, Map.of());
    }

    /** The same, with more run-time parameters after those. */
    static byte[] startupPacket(String user, String database, Map<String, String> parameters) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0, 3, 0, 0});
        for (String s : new String[] {"user", user, "database", database, "client_encoding", "UTF8",
                "application_name", "raw"}) {
            body.writeBytes(cString(s));
        }
        for (Map.Entry<String, String> each : parameters.entrySet()) {
            body.writeBytes(cString(each.getKey()));
            body.writeBytes(cString(each.getValue()));
        }
        body.write(0);
        byte[] bytes = body.toByteArray();
        return ByteBuffer.allocate(4 + bytes.length).putInt(4 + bytes.length).put(bytes).array();
    }

    static byte[] query(String sql) {
        return message('Q', cString(sql));
    }

    /** Parse: statement name, SQL, parameter type OIDs (0 = unspecified). */
    static byte[] parse(String name, String sql, int... typeOids) {
        ByteBuffer types = ByteBuffer.allocate(2 + 4 * typeOids.length).putShort((short) typeOids.length);
        for (int oid : typeOids) {
            types.putInt(oid);
        }
        return message('P', concat(cString(name), cString(sql), types.array()));
    }

    /**
     * Bind: portal, statement, parameter format codes, parameter values (null for SQL NULL), result format codes.
     */
    static byte[] bind(String portal, String statement, short[] parameterFormats, byte[][] values, short[] resultFormats) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(cString(portal));
        body.writeBytes(cString(statement));
        body.writeBytes(ByteBuffer.allocate(2).putShort((short) parameterFormats.length).array());
        for (short format : parameterFormats) {
            body.writeBytes(ByteBuffer.allocate(2).putShort(format).array());
        }
        body.writeBytes(ByteBuffer.allocate(2).putShort((short) values.length).array());
        for (byte[] value : values) {
            body.writeBytes(ByteBuffer.allocate(4).putInt(value == null ? -1 : value.length).array());
            if (value != null) {
                body.writeBytes(value);
            }
        }
        body.writeBytes(ByteBuffer.allocate(2).putShort((short) resultFormats.length).array());
        for (short format : resultFormats) {
            body.writeBytes(ByteBuffer.allocate(2).putShort(format).array());
        }
        return message('B', body.toByteArray());
    }

    /** Bind of text parameters with text results. */
    static byte[] bind(String portal, String statement, String... textValues) {
        byte[][] values = new byte[textValues.length][];
        for (int i = 0; i < textValues.length; i++) {
            values[i] = textValues[i] == null ? null : textValues[i].getBytes(StandardCharsets.UTF_8);
        }
        return bind(portal, statement, new short[0], values, new short[0]);
    }

    static byte[] describe(char kind, String name) {
        return message('D', concat(new byte[] {(byte) kind}, cString(name)));
    }

    static byte[] execute(String portal, int maxRows) {
        return message('E', concat(cString(portal), ByteBuffer.allocate(4).putInt(maxRows).array()));
    }

    static byte[] close(char kind, String name) {
        return message('C', concat(new byte[] {(byte) kind}, cString(name)));
    }

    static byte[] sync() {
        return message('S', new byte[0]);
    }

    static byte[] flush() {
        return message('H', new byte[0]);
    }
}
