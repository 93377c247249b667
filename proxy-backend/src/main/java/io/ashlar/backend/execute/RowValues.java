package io.ashlar.backend.execute;

/**
 * The values of one row in text format, as the backend sent them. A view: implementations may
 * be reused from row to row, so a consumer copies what it keeps.
 */
public interface RowValues extends io.ashlar.protocol.DataRow.Values {

    @Override
    int columnCount();

    /** The raw value bytes of a column, {@code null} for SQL NULL. */
    @Override
    byte[] value(int column);
}
