package io.ashlar.frontend.auth;

import java.util.Optional;

/**
 * The body of a PasswordMessage that carries one String: its bytes without the terminating NUL,
 * or empty when the body is not exactly one NUL-terminated string (PostgreSQL:
 * {@code invalid password packet size}, 08P01).
 */
final class PasswordPacket {

    static final String INVALID_SIZE = "invalid password packet size";

    private PasswordPacket() {
    }

    static Optional<byte[]> text(byte[] body) {
        if (body.length == 0 || body[body.length - 1] != 0) {
            return Optional.empty();
        }
        for (int i = 0; i < body.length - 1; i++) {
            if (body[i] == 0) {
                return Optional.empty();
            }
        }
        return Optional.of(java.util.Arrays.copyOf(body, body.length - 1));
    }

    static AuthStep.Failure invalidSize() {
        return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, INVALID_SIZE);
    }
}
