package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.FloatText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code point} and {@code box}: {@code point_send} writes x then y as float8; {@code box_send}
 * writes the high corner then the low one, the order {@code box_out} prints them in
 * ({@code (x1,y1),(x2,y2)}). The text's numbers are float8 output, read back exactly. pgjdbc asks
 * for these two in binary even with binary transfer off. See
 * <a href="https://www.postgresql.org/docs/current/datatype-geometric.html">Geometric Types</a>.
 */
final class GeometryEncoder implements ValueEncoder {

    static final GeometryEncoder POINT = new GeometryEncoder(TypeOids.POINT, 2, "point");
    static final GeometryEncoder BOX = new GeometryEncoder(TypeOids.BOX, 4, "box");

    private final int typeOid;
    private final int numbers;
    private final String typeName;

    private GeometryEncoder(int typeOid, int numbers, String typeName) {
        this.typeOid = typeOid;
        this.numbers = numbers;
        this.typeName = typeName;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int p = offset;
        for (int i = 0; i < numbers; i++) {
            while (p < end && (text[p] == '(' || text[p] == ')' || text[p] == ',' || text[p] == ' ')) {
                p++;
            }
            int start = p;
            while (p < end && text[p] != ',' && text[p] != ')') {
                p++;
            }
            if (start == p) {
                throw AsciiText.malformed(typeName, text, offset, end);
            }
            out.writeDouble(FloatText.parseDouble(text, start, p - start));
        }
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(numbers * Double.BYTES);
        write(text, offset, length, out);
    }
}
