package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * openGauss's SHA256 authentication request ({@code AUTH_REQ_SHA256} = 10, password stored as
 * SHA256 = 2), the only password method openGauss's JDBC driver uses by default. Layout:
 * <pre>
 * Byte1 'R', Int32 length (84 for protocol 3.50, 88 for 3.51), Int32 10, Int32 2,
 * 64 hex chars of salt (32 bytes), 8 hex chars of token (4 bytes), [3.51: Int32 iterations]
 * </pre>
 * The hex strings have no NUL: the driver reads exactly 64 and 8 bytes. Without the iteration
 * count (3.50) the driver uses 2048. The client answers with a {@link PasswordMessage} holding
 * 64 hex chars and a NUL (see {@code io.ashlar.frontend.auth.OpenGaussSha256Authenticator}).
 *
 * @param salt 32 bytes
 * @param token 4 bytes, new for each login
 * @param iterations present for protocol 3.51
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>,
 *     {@code ConnectionFactoryImpl.doAuthentication} and {@code MD5Digest.RFC5802Algorithm}
 */
public record AuthenticationSHA256Password(byte[] salt, byte[] token, OptionalInt iterations)
        implements BackendMessage {

    public static final int CODE = 10;
    public static final int STORED_METHOD_SHA256 = 2;
    public static final int SALT_LENGTH = 32;
    public static final int TOKEN_LENGTH = 4;

    private static final HexFormat HEX = HexFormat.of();

    public AuthenticationSHA256Password {
        Objects.requireNonNull(salt, "salt");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(iterations, "iterations");
        if (salt.length != SALT_LENGTH || token.length != TOKEN_LENGTH) {
            throw new IllegalArgumentException("SHA256 salt must be 32 bytes and token 4 bytes");
        }
        salt = salt.clone();
        token = token.clone();
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] token() {
        return token.clone();
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte('R');
        out.writeInt(iterations.isPresent() ? 88 : 84);
        out.writeInt(CODE);
        out.writeInt(STORED_METHOD_SHA256);
        ByteBufUtil.writeAscii(out, HEX.formatHex(salt));
        ByteBufUtil.writeAscii(out, HEX.formatHex(token));
        if (iterations.isPresent()) {
            out.writeInt(iterations.getAsInt());
        }
    }

    public static AuthenticationSHA256Password decode(ByteBuf in) {
        int length = Wire.readHeader(in, 'R');
        if (length != 80 && length != 84) {
            throw new IllegalArgumentException("invalid SHA256 request length " + (length + 4));
        }
        AuthenticationMessages.expectCode(in, CODE);
        int method = in.readInt();
        if (method != STORED_METHOD_SHA256) {
            throw new IllegalArgumentException("unexpected password stored method " + method);
        }
        byte[] salt = HEX.parseHex(in.readCharSequence(2 * SALT_LENGTH, StandardCharsets.US_ASCII));
        byte[] token = HEX.parseHex(in.readCharSequence(2 * TOKEN_LENGTH, StandardCharsets.US_ASCII));
        OptionalInt iterations = length == 84 ? OptionalInt.of(in.readInt()) : OptionalInt.empty();
        return new AuthenticationSHA256Password(salt, token, iterations);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AuthenticationSHA256Password that && Arrays.equals(salt, that.salt)
                && Arrays.equals(token, that.token) && iterations.equals(that.iterations);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(salt) + Arrays.hashCode(token)) + iterations.hashCode();
    }

    @Override
    public String toString() {
        return "AuthenticationSHA256Password[salt=" + Wire.hex(salt) + ", token=" + Wire.hex(token)
                + ", iterations=" + iterations + "]";
    }
}
