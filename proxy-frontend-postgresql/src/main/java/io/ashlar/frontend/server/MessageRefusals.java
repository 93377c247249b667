package io.ashlar.frontend.server;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.protocol.FrontendMessage;

/**
 * The ERROR a session answers, at the message's place, for a client's message that PostgreSQL
 * refuses before running anything of it: a body that does not read (08P01, with pqformat.c's
 * words), or a message too large for the memory the proxy lets clients' messages take (54000 or
 * 53200, PostgreSQL's "out of memory" with its detail). What follows the error is
 * {@link io.ashlar.protocol.AfterError}'s to say.
 */
public final class MessageRefusals {

    private MessageRefusals() {
    }

    /** ERROR 08P01 with the decoder's reason ({@code insufficient data left in message}, ...). */
    public static ErrorFields error(FrontendMessage.Malformed malformed) {
        return ErrorFields.error(malformed.sqlState(), malformed.reason());
    }

    /** ERROR 54000 or 53200, {@code out of memory}, with the detail and hint of the refusal. */
    public static ErrorFields error(FrontendMessage.TooLarge refusal) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D', 'H'}, new String[] {ErrorFields.ERROR, ErrorFields.ERROR,
                refusal.sqlState(), FrontendMessage.TooLarge.MESSAGE, refusal.detail(), refusal.hint()});
    }
}
