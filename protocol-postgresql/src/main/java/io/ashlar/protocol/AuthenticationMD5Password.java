package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Asks the client for {@code "md5" + md5hex(md5hex(password + user) + salt)}.
 *
 * @param salt 4 random bytes, new for each login
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-AUTHENTICATIONMD5PASSWORD">AuthenticationMD5Password</a>
 */
public record AuthenticationMD5Password(byte[] salt) implements BackendMessage {

    static final int CODE = 5;

    public AuthenticationMD5Password {
        Objects.requireNonNull(salt, "salt");
        if (salt.length != 4) {
            throw new IllegalArgumentException("MD5 salt must be 4 bytes");
        }
        salt = salt.clone();
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte('R');
        out.writeInt(12);
        out.writeInt(CODE);
        out.writeBytes(salt);
    }

    public static AuthenticationMD5Password decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'R') + in.readerIndex();
        AuthenticationMessages.expectCode(in, CODE);
        AuthenticationMD5Password result = new AuthenticationMD5Password(Wire.readBytes(in, 4));
        Wire.expectEnd(in, end);
        return result;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AuthenticationMD5Password that && Arrays.equals(salt, that.salt);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(salt);
    }

    @Override
    public String toString() {
        return "AuthenticationMD5Password[salt=" + Wire.hex(salt) + "]";
    }
}
