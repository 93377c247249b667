package io.ashlar.frontend.auth;

import io.ashlar.protocol.BackendMessage;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.PgErrorFields;
import java.util.Objects;
import java.util.Optional;

/**
 * What an {@link Authenticator} wants done after a client's password message.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP">Start-up</a>
 */
public sealed interface AuthStep {

    /**
     * Send this message (a SASL challenge) and wait for the next password message.
     *
     * @param message the challenge
     */
    record Continue(BackendMessage message) implements AuthStep {

        public Continue {
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * The client proved it knows the password: send {@code finalMessage} if present (SCRAM's
     * AuthenticationSASLFinal), then AuthenticationOk.
     *
     * @param finalMessage the message to send before AuthenticationOk
     */
    record Success(Optional<BackendMessage> finalMessage) implements AuthStep {

        static final Success PLAIN = new Success(Optional.empty());

        public Success {
            Objects.requireNonNull(finalMessage, "finalMessage");
        }
    }

    /**
     * Login refused: send a FATAL ErrorResponse ({@link #toErrorResponse()}) and close.
     *
     * @param sqlState 28P01 for a wrong password, 28000 for a refused channel binding, 08P01 for a malformed message
     * @param message the primary message, PostgreSQL's wording
     * @param detail extra detail, empty when none
     */
    record Failure(String sqlState, String message, String detail) implements AuthStep {

        public static final String INVALID_PASSWORD = "28P01";
        public static final String INVALID_AUTHORIZATION = "28000";
        public static final String PROTOCOL_VIOLATION = "08P01";
        public static final String FEATURE_NOT_SUPPORTED = "0A000";

        public Failure {
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(detail, "detail");
        }

        public Failure(String sqlState, String message) {
            this(sqlState, message, "");
        }

        /** PostgreSQL's reply to a wrong password. */
        static Failure passwordFailed(String userName) {
            return new Failure(INVALID_PASSWORD, "password authentication failed for user \"" + userName + "\"");
        }

        /** The FATAL error to send. */
        public ErrorResponse toErrorResponse() {
            PgErrorFields.Builder fields = PgErrorFields.builder(PgErrorFields.FATAL, sqlState, message);
            if (!detail.isEmpty()) {
                fields.detail(detail);
            }
            return new ErrorResponse(fields.build());
        }
    }
}
