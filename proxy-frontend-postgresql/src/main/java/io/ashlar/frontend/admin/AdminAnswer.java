package io.ashlar.frontend.admin;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.protocol.BackendMessage;
import io.ashlar.protocol.CommandComplete;
import io.ashlar.protocol.DataRow;
import io.ashlar.protocol.RowDescription;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxy's answer to an admin command: a result set in text format (the columns typed as PostgreSQL would type
 * them, so that psql aligns numbers and JDBC's getLong reads them), or an error.
 */
public final class AdminAnswer {

    /** Type OIDs of the columns (pg_type.dat). */
    static final int TEXT = 25;
    static final int INT4 = 23;
    static final int INT8 = 20;
    static final int BOOL = 16;
    static final int TIMESTAMPTZ = 1184;

    private final List<RowDescription.Field> fields = new ArrayList<>();
    private final List<byte[][]> rows = new ArrayList<>();
    private final ErrorFields error;
    private String tag;

    private AdminAnswer(ErrorFields error) {
        this.error = error;
    }

    /** A result set; add its columns, then its rows. */
    static AdminAnswer result(String tag) {
        AdminAnswer result = new AdminAnswer(null);
        result.tag = tag;
        return result;
    }

    static AdminAnswer error(ErrorFields error) {
        return new AdminAnswer(error);
    }

    AdminAnswer column(String name, int typeOid) {
        short size = switch (typeOid) {
            case INT4 -> 4;
            case INT8, TIMESTAMPTZ -> 8;
            case BOOL -> 1;
            default -> -1;
        };
        fields.add(new RowDescription.Field(name, 0, (short) 0, typeOid, size, -1, (short) 0));
        return this;
    }

    /** A row: one value per column, each printed with {@link String#valueOf(Object)}; null for NULL. */
    AdminAnswer row(Object... values) {
        if (values.length != fields.size()) {
            throw new IllegalArgumentException(values.length + " values for " + fields.size() + " columns");
        }
        byte[][] row = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            Object each = values[i];
            if (each instanceof Boolean bool) {
                each = bool ? "t" : "f";
            }
            row[i] = each == null ? null : String.valueOf(each).getBytes(StandardCharsets.UTF_8);
        }
        rows.add(row);
        return this;
    }

    /** The error, or null for a result set. */
    public ErrorFields error() {
        return error;
    }

    /** The column names, in order (for tests and logs). */
    public List<String> columnNames() {
        List<String> result = new ArrayList<>(fields.size());
        for (RowDescription.Field each : fields) {
            result.add(each.name());
        }
        return result;
    }

    /** The columns as a backend would describe them (empty for a command without rows). */
    public io.ashlar.backend.execute.ColumnDescription[] columns() {
        io.ashlar.backend.execute.ColumnDescription[] result = new io.ashlar.backend.execute.ColumnDescription[fields.size()];
        for (int i = 0; i < result.length; i++) {
            RowDescription.Field each = fields.get(i);
            result[i] = new io.ashlar.backend.execute.ColumnDescription(each.name(), 0, (short) 0, each.typeOid(),
                    each.typeSize(), each.typeModifier());
        }
        return result;
    }

    /** The rows, each value in text format (null for NULL). */
    public List<byte[][]> rows() {
        return rows;
    }

    /** The rows with their text in {@code text}, a session's client_encoding (they are made in UTF-8). */
    public List<byte[][]> rows(java.nio.charset.Charset text) {
        if (text == StandardCharsets.UTF_8) {
            return rows;
        }
        List<byte[][]> result = new ArrayList<>(rows.size());
        for (byte[][] row : rows) {
            byte[][] converted = new byte[row.length][];
            for (int i = 0; i < row.length; i++) {
                converted[i] = row[i] == null ? null : new String(row[i], StandardCharsets.UTF_8).getBytes(text);
            }
            result.add(converted);
        }
        return result;
    }

    /** The command tag. */
    public String tag() {
        return tag.equals("SHOW") ? tag : tag + " " + rows.size();
    }

    /** The messages of the result set up to its CommandComplete (an error is the caller's to write). */
    public List<BackendMessage> messages() {
        return messages(StandardCharsets.UTF_8);
    }

    /** The same, the rows' text in {@code text} (the session's client_encoding). */
    public List<BackendMessage> messages(java.nio.charset.Charset text) {
        List<BackendMessage> result = new ArrayList<>(rows.size() + 2);
        if (!fields.isEmpty()) {
            result.add(new RowDescription(fields));
            for (byte[][] each : rows(text)) {
                result.add(new DataRow(each));
            }
        }
        result.add(new CommandComplete(tag()));
        return result;
    }
}
