package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * The built-in multirange types (PostgreSQL 14): {@code multirange_send} writes Int32 count of
 * ranges, then each range as Int32 length and its {@code range_send} form. {@code multirange_out}
 * prints the ranges in order between braces, separated by commas, each as {@code range_out} does
 * ({@code {[1,3),[5,7)}}, {@code {}}); a multirange never holds an empty range. See
 * <a href="https://www.postgresql.org/docs/current/rangetypes.html#RANGETYPES-BUILTIN">Built-in
 * Range and Multirange Types</a> and {@code src/backend/utils/adt/multirangetypes.c}.
 */
final class MultirangeEncoder implements ValueEncoder {

    static final MultirangeEncoder INT4MULTIRANGE =
            new MultirangeEncoder(TypeOids.INT4MULTIRANGE, RangeEncoder.INT4RANGE, "int4multirange");
    static final MultirangeEncoder INT8MULTIRANGE =
            new MultirangeEncoder(TypeOids.INT8MULTIRANGE, RangeEncoder.INT8RANGE, "int8multirange");
    static final MultirangeEncoder NUMMULTIRANGE =
            new MultirangeEncoder(TypeOids.NUMMULTIRANGE, RangeEncoder.NUMRANGE, "nummultirange");
    static final MultirangeEncoder DATEMULTIRANGE =
            new MultirangeEncoder(TypeOids.DATEMULTIRANGE, RangeEncoder.DATERANGE, "datemultirange");
    static final MultirangeEncoder TSMULTIRANGE =
            new MultirangeEncoder(TypeOids.TSMULTIRANGE, RangeEncoder.TSRANGE, "tsmultirange");
    static final MultirangeEncoder TSTZMULTIRANGE =
            new MultirangeEncoder(TypeOids.TSTZMULTIRANGE, RangeEncoder.TSTZRANGE, "tstzmultirange");

    private final int typeOid;
    private final RangeEncoder range;
    private final String typeName;

    private MultirangeEncoder(int typeOid, RangeEncoder range, String typeName) {
        this.typeOid = typeOid;
        this.range = range;
        this.typeName = typeName;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (length < 2 || text[offset] != '{' || text[end - 1] != '}') {
            throw AsciiText.malformed(typeName, text, offset, end);
        }
        int countIndex = out.writerIndex();
        out.writeInt(0);
        int count = 0;
        int p = offset + 1;
        while (p < end - 1) {
            int lengthIndex = out.writerIndex();
            out.writeInt(0);
            p = range.writeRange(text, p, end - 1, out);
            out.setInt(lengthIndex, out.writerIndex() - lengthIndex - Integer.BYTES);
            count++;
            if (p < end - 1) {
                if (text[p] != ',' || p + 1 == end - 1) {
                    throw AsciiText.malformed(typeName, text, offset, end);
                }
                p++;
            }
        }
        out.setInt(countIndex, count);
    }
}
