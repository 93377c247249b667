package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Describes the columns of the rows that follow. The type OIDs, sizes and modifiers are the
 * backend's real ones; the format is the one the client asked for in Bind (text for the simple
 * protocol). The static {@link #encode(ByteBuf, Column[], short[])} is the hot path: it writes the
 * columns a session holds straight into the output buffer; the record and its encoder write the
 * same bytes through the same code, for tests and traces.
 *
 * @param fields one per column, in order
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-ROWDESCRIPTION">RowDescription</a>
 */
public record RowDescription(List<Field> fields) implements BackendMessage {

    public static final byte TYPE = 'T';

    public RowDescription {
        fields = List.copyOf(fields);
    }

    /** What RowDescription says of one column, whatever holds it. */
    public interface Column {
        String name();

        int tableOid();

        short columnNumber();

        int typeOid();

        short typeSize();

        int typeModifier();
    }

    /**
     * One column.
     *
     * @param name the column name
     * @param tableOid the table's OID if the column is a table column, else 0
     * @param columnNumber the attribute number if a table column, else 0
     * @param typeOid the data type's OID
     * @param typeSize {@code pg_type.typlen}; negative for variable width
     * @param typeModifier {@code pg_attribute.atttypmod}
     * @param format 0 text, 1 binary
     */
    public record Field(String name, int tableOid, short columnNumber, int typeOid, short typeSize, int typeModifier,
                        short format) implements Column {

        public Field {
            Objects.requireNonNull(name, "name");
        }

        /** The same column in another format. */
        public Field withFormat(short newFormat) {
            return newFormat == format ? this
                    : new Field(name, tableOid, columnNumber, typeOid, typeSize, typeModifier, newFormat);
        }
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        out.writeShort(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            Field each = fields.get(i);
            writeField(out, each, each.format, text);
        }
        Wire.end(out, start);
    }

    /**
     * Writes a RowDescription of these columns, each in the given format (0 text, 1 binary; null
     * formats: all text).
     */
    public static void encode(ByteBuf out, Column[] columns, short[] formats) {
        encode(out, columns, formats, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** As {@link #encode(ByteBuf, Column[], short[])}, the column names in {@code text} (the session's client_encoding). */
    public static void encode(ByteBuf out, Column[] columns, short[] formats, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        out.writeShort(columns.length);
        for (int i = 0; i < columns.length; i++) {
            writeField(out, columns[i], formats == null ? 0 : formats[i], text);
        }
        Wire.end(out, start);
    }

    private static void writeField(ByteBuf out, Column column, short format, java.nio.charset.Charset text) {
        Wire.writeCString(out, column.name(), text);
        out.writeInt(column.tableOid());
        out.writeShort(column.columnNumber());
        out.writeInt(column.typeOid());
        out.writeShort(column.typeSize());
        out.writeInt(column.typeModifier());
        out.writeShort(format);
    }

    public static RowDescription decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'T') + in.readerIndex();
        int count = in.readUnsignedShort();
        List<Field> fields = new ArrayList<>(Math.min(count, in.readableBytes() / 19));
        for (int i = 0; i < count; i++) {
            fields.add(new Field(Wire.readCString(in), in.readInt(), in.readShort(), in.readInt(), in.readShort(),
                    in.readInt(), in.readShort()));
        }
        Wire.expectEnd(in, end);
        return new RowDescription(fields);
    }
}
