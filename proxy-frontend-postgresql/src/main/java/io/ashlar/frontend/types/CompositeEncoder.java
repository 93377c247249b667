package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.netty.buffer.ByteBuf;

/**
 * Composite types (a table's row type, {@code CREATE TYPE ... AS (...)}) whose every field type has an encoder.
 * {@code record_send} writes Int32 field count, then per field (dropped ones left out) Int32 type OID, Int32 length
 * (-1 for NULL) and the field's own binary form. The text is {@code record_out}'s: {@code (1,"a b",)}: fields between
 * parentheses separated by commas, a NULL one empty, one double-quoted when it is empty or holds a quote, backslash,
 * parenthesis, comma or white space, and inside quotes a quote doubled or a backslash before a byte stands for that
 * byte. See <a href="https://www.postgresql.org/docs/current/rowtypes.html#ROWTYPES-IO-SYNTAX">Composite Type
 * Input and Output Syntax</a>.
 */
final class CompositeEncoder implements ValueEncoder {

    private static final String TYPE_NAME = "record";
    private static final int NULL_LENGTH = -1;

    private final int typeOid;
    private final int[] fieldTypes;
    private final ValueEncoder[] fields;

    /** @param fields the encoder of each field (not dropped), whose type OIDs the binary form names */
    CompositeEncoder(int typeOid, ValueEncoder[] fields) {
        this.typeOid = typeOid;
        this.fields = fields;
        this.fieldTypes = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            fieldTypes[i] = fields[i].typeOid();
        }
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (length < 2 || text[offset] != '(' || text[end - 1] != ')') {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        out.writeInt(fields.length);
        int p = offset + 1;
        byte[] unescaped = null;
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                if (p >= end || text[p] != ',') {
                    throw AsciiText.malformed(TYPE_NAME, text, offset, end);
                }
                p++;
            }
            out.writeInt(fieldTypes[i]);
            if (p >= end) {
                throw AsciiText.malformed(TYPE_NAME, text, offset, end);
            }
            byte b = text[p];
            if (b == ',' || b == ')') {
                out.writeInt(NULL_LENGTH);
                continue;
            }
            int from = p;
            boolean quoted = false;
            boolean escaped = false;
            while (true) {
                if (p >= end) {
                    throw AsciiText.malformed(TYPE_NAME, text, offset, end);
                }
                byte c = text[p];
                if (quoted) {
                    if (c == '\\') {
                        p += 2;
                    } else if (c == '"' && p + 1 < end && text[p + 1] == '"') {
                        p += 2;
                    } else {
                        quoted = c != '"';
                        p++;
                    }
                } else if (c == ',' || c == ')') {
                    break;
                } else {
                    quoted = c == '"';
                    escaped |= c == '"' || c == '\\';
                    p += c == '\\' ? 2 : 1;
                }
            }
            int lengthIndex = out.writerIndex();
            out.writeInt(0);
            if (escaped) {
                if (unescaped == null || unescaped.length < p - from) {
                    unescaped = new byte[p - from];
                }
                int n = unescape(text, from, p, unescaped);
                fields[i].write(unescaped, 0, n, out);
            } else {
                fields[i].write(text, from, p - from, out);
            }
            out.setInt(lengthIndex, out.writerIndex() - lengthIndex - Integer.BYTES);
        }
        if (p != end - 1) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
    }

    /** The field's bytes without its quotes and escapes ({@code record_in}'s reading); returns their count. */
    private static int unescape(byte[] text, int from, int to, byte[] into) {
        int n = 0;
        boolean quoted = false;
        for (int p = from; p < to; p++) {
            byte c = text[p];
            if (c == '\\' && p + 1 < to) {
                into[n++] = text[++p];
            } else if (c == '"') {
                if (quoted && p + 1 < to && text[p + 1] == '"') {
                    into[n++] = '"';
                    p++;
                } else {
                    quoted = !quoted;
                }
            } else {
                into[n++] = c;
            }
        }
        return n;
    }
}
