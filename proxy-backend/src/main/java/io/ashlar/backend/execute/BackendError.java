package io.ashlar.backend.execute;

import java.sql.SQLException;

/**
 * A backend's ErrorResponse, or a failure of the proxy's own at the backend (a connection lost,
 * none to be had), with the fields the client is to get.
 */
public final class BackendError extends SQLException {

    private final transient ErrorFields fields;

    public BackendError(ErrorFields fields) {
        super(fields.message(), fields.sqlState());
        this.fields = fields;
    }

    public ErrorFields fields() {
        return fields;
    }
}
