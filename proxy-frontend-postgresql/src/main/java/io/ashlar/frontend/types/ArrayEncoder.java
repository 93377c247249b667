package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.netty.buffer.ByteBuf;

/**
 * Arrays of a supported element type, any number of dimensions up to PostgreSQL's {@code MAXDIM}.
 * {@code array_send} writes Int32 ndim, Int32 has-nulls flag, Int32 element type OID, per
 * dimension Int32 size and Int32 lower bound, then every element in row-major order as Int32
 * length (-1 for NULL) and the element's own binary form. An empty array is ndim 0 with no
 * dimensions. The text is {@code array_out}'s: {@code {1,2,NULL}}, {@code {{1,2},{3,4}}},
 * {@code {"a b","c\"d"}}, and a {@code [2:3]=} prefix when a lower bound is not 1. An element is
 * double-quoted when it is empty, spells NULL, or holds a quote, backslash, brace, comma or
 * white space, and inside quotes a backslash escapes the next byte. See
 * <a href="https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO">Array Input and Output
 * Syntax</a>.
 *
 * <p>The has-nulls flag is 1 when an element is NULL. PostgreSQL sends 1 also for an array that
 * kept a null bitmap after its NULLs were replaced, which the text cannot show.
 */
final class ArrayEncoder implements ValueEncoder {

    private static final String TYPE_NAME = "array";
    private static final int MAXDIM = 6;
    private static final int DIMENSION_BYTES = 2 * Integer.BYTES;
    private static final int NULL_LENGTH = -1;

    private final int typeOid;
    private final ValueEncoder element;

    ArrayEncoder(int typeOid, ValueEncoder element) {
        this.typeOid = typeOid;
        this.element = element;
    }

    @Override
    public int typeOid() {
        return typeOid;
    }

    ValueEncoder element() {
        return element;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int p = offset;
        int[] lowerBounds = null;
        if (p < end && text[p] == '[') {
            lowerBounds = new int[MAXDIM + 1];
            p = parseBounds(text, offset, end, lowerBounds);
        }
        int firstElement = p;
        while (firstElement < end && text[firstElement] == '{') {
            firstElement++;
        }
        int ndim = firstElement - p;
        if (ndim == 0 || ndim > MAXDIM) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        if (ndim == 1 && firstElement + 1 == end && text[firstElement] == '}' && lowerBounds == null) {
            out.writeInt(0);
            out.writeInt(0);
            out.writeInt(element.typeOid());
            return;
        }
        out.writeInt(ndim);
        int hasNullsIndex = out.writerIndex();
        out.writeInt(0);
        out.writeInt(element.typeOid());
        int dimensionsIndex = out.writerIndex();
        for (int d = 0; d < ndim; d++) {
            out.writeInt(0);
            out.writeInt(lowerBounds == null ? 1 : lowerBounds[d]);
        }
        if (lowerBounds != null && lowerBounds[MAXDIM] != ndim) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        boolean hasNulls = writeElements(text, p, end, ndim, out, dimensionsIndex);
        if (hasNulls) {
            out.setInt(hasNullsIndex, 1);
        }
    }

    /**
     * Reads {@code [lb:ub]...=} into {@code lowerBounds}, and their count into its last slot;
     * returns where the braces start.
     */
    private static int parseBounds(byte[] text, int offset, int end, int[] lowerBounds) {
        int p = offset;
        int d = 0;
        while (p < end && text[p] == '[') {
            int colon = AsciiText.indexOf(text, (byte) ':', p, end);
            int close = AsciiText.indexOf(text, (byte) ']', colon, end);
            if (d == MAXDIM || close == end) {
                throw AsciiText.malformed(TYPE_NAME, text, offset, end);
            }
            lowerBounds[d++] = (int) AsciiText.parseLong(text, p + 1, colon, TYPE_NAME);
            p = close + 1;
        }
        if (p == end || text[p] != '=') {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        lowerBounds[MAXDIM] = d;
        return p + 1;
    }

    /**
     * Writes the elements of the braces starting at {@code from}, patches each dimension's size
     * as its first sub-array closes, and tells whether any element was NULL.
     */
    private boolean writeElements(byte[] text, int from, int end, int ndim, ByteBuf out, int dimensionsIndex) {
        int[] counts = new int[ndim];
        byte[] unescaped = null;
        boolean result = false;
        int depth = 0;
        int p = from;
        while (p < end) {
            byte b = text[p];
            if (b == '{') {
                if (depth == ndim) {
                    throw AsciiText.malformed(TYPE_NAME, text, from, end);
                }
                counts[depth++] = 0;
                p++;
                continue;
            }
            if (b == '}') {
                if (depth == 0) {
                    throw AsciiText.malformed(TYPE_NAME, text, from, end);
                }
                depth--;
                out.setInt(dimensionsIndex + depth * DIMENSION_BYTES, counts[depth]);
                if (depth == 0) {
                    p++;
                    break;
                }
                counts[depth - 1]++;
                p = afterDelimiter(text, p + 1, end, from);
                continue;
            }
            if (depth != ndim) {
                throw AsciiText.malformed(TYPE_NAME, text, from, end);
            }
            counts[depth - 1]++;
            if (b == '"') {
                int close = p + 1;
                boolean escaped = false;
                while (close < end && text[close] != '"') {
                    if (text[close] == '\\') {
                        escaped = true;
                        close++;
                    }
                    close++;
                }
                if (close >= end) {
                    throw AsciiText.malformed(TYPE_NAME, text, from, end);
                }
                if (escaped) {
                    if (unescaped == null) {
                        unescaped = new byte[end - from];
                    }
                    int unescapedLength = unescape(text, p + 1, close, unescaped);
                    element.writeWithLength(unescaped, 0, unescapedLength, out);
                } else {
                    element.writeWithLength(text, p + 1, close - p - 1, out);
                }
                p = afterDelimiter(text, close + 1, end, from);
            } else {
                int tokenEnd = p;
                while (tokenEnd < end && text[tokenEnd] != ',' && text[tokenEnd] != '}') {
                    tokenEnd++;
                }
                if (tokenEnd == p || tokenEnd == end) {
                    throw AsciiText.malformed(TYPE_NAME, text, from, end);
                }
                if (isNull(text, p, tokenEnd)) {
                    out.writeInt(NULL_LENGTH);
                    result = true;
                } else {
                    element.writeWithLength(text, p, tokenEnd - p, out);
                }
                p = afterDelimiter(text, tokenEnd, end, from);
            }
        }
        if (depth != 0 || p != end) {
            throw AsciiText.malformed(TYPE_NAME, text, from, end);
        }
        return result;
    }

    /** Skips the comma after an element or sub-array; a closing brace is left to be read. */
    private static int afterDelimiter(byte[] text, int p, int end, int from) {
        if (p < end && text[p] == ',') {
            return p + 1;
        }
        if (p < end && text[p] == '}') {
            return p;
        }
        throw AsciiText.malformed(TYPE_NAME, text, from, end);
    }

    private static int unescape(byte[] text, int from, int to, byte[] target) {
        int result = 0;
        for (int p = from; p < to; p++) {
            if (text[p] == '\\') {
                p++;
            }
            target[result++] = text[p];
        }
        return result;
    }

    private static boolean isNull(byte[] text, int from, int to) {
        return to - from == 4
                && (text[from] | 0x20) == 'n' && (text[from + 1] | 0x20) == 'u'
                && (text[from + 2] | 0x20) == 'l' && (text[from + 3] | 0x20) == 'l';
    }
}
