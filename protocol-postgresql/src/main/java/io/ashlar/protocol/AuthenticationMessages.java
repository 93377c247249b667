package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The authentication requests all share type {@code 'R'} and tell themselves apart by an Int32
 * code after the length; this reads that code for the test-side decoders.
 */
final class AuthenticationMessages {

    private AuthenticationMessages() {
    }

    static void expectCode(ByteBuf in, int code) {
        int actual = in.readInt();
        if (actual != code) {
            throw new IllegalArgumentException("expected authentication code " + code + " but got " + actual);
        }
    }
}
