package io.ashlar.backend.execute;

/**
 * A statement failed; the client gets {@link #fields()} as an ErrorResponse. Thrown once per
 * failed statement, never used for control flow on a path that succeeds.
 */
public final class StatementFailure extends Exception {

    private final transient ErrorFields fields;

    public StatementFailure(ErrorFields fields) {
        super(fields.message(), null, false, false);
        this.fields = fields;
    }

    public StatementFailure(ErrorFields fields, Throwable cause) {
        super(fields.message(), cause, false, false);
        this.fields = fields;
    }

    public ErrorFields fields() {
        return fields;
    }

    /** This failure with its position moved by {@code offset} ({@link ErrorFields#shifted}); itself where nothing moves. */
    public StatementFailure shifted(int offset) {
        ErrorFields moved = fields.shifted(offset);
        return moved == fields ? this : new StatementFailure(moved, getCause());
    }
}
