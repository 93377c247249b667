package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.protocol.RowDescription;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** A RowDescription seen again by a data source is the one decoded before; any byte that differs is decoded anew. */
final class RowDescriptionCacheTest {

    private static ColumnDescription column(String name, int type, int modifier) {
        return new ColumnDescription(name, 16_384, (short) 1, type, (short) -1, modifier);
    }

    /** The frame in a buffer that holds other bytes before it, as a backend's read does. */
    private static ByteBuf frame(ColumnDescription... columns) {
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(new byte[] {'Z', 0, 0, 0, 5, 'I'});
        RowDescription.encode(out, columns, null);
        return out;
    }

    private static ColumnDescription[] read(RowDescriptionCache cache, ByteBuf frame) {
        return cache.columns(frame, 6, frame.writerIndex() - 6);
    }

    @Test
    void theSameBytesGiveTheSameColumns() {
        RowDescriptionCache cache = new RowDescriptionCache();
        ColumnDescription[] columns = {column("o_id", 23, -1), column("o_note", 1043, 36)};
        ColumnDescription[] first = read(cache, frame(columns));
        assertArrayEquals(columns, first);
        assertSame(first, read(cache, frame(columns)));
    }

    @Test
    void theSameBytesInAnotherClientEncodingNameOtherColumns() {
        RowDescriptionCache cache = new RowDescriptionCache();
        java.nio.charset.Charset win1252 = java.nio.charset.Charset.forName("windows-1252");
        ByteBuf latin = Unpooled.buffer();
        latin.writeBytes(new byte[] {'Z', 0, 0, 0, 5, 'I'});
        // "Zähler €" as a backend in WIN1252 sends it: read as UTF-8, these bytes are no such name.
        RowDescription.encode(latin, new ColumnDescription[] {column("Zähler €", 20, -1)}, null, win1252);
        int length = latin.writerIndex() - 6;
        ColumnDescription[] inWin1252 = cache.describe(latin, 6, length, win1252).columns();
        assertEquals("Zähler €", inWin1252[0].name());
        ColumnDescription[] inUtf8 = cache.describe(latin, 6, length, java.nio.charset.StandardCharsets.UTF_8).columns();
        assertNotSame(inWin1252, inUtf8);
        assertEquals(new String("Zähler €".getBytes(win1252), java.nio.charset.StandardCharsets.UTF_8), inUtf8[0].name());
        // Each kept for its own charset: the WIN1252 session's next statement hits again.
        ColumnDescription[] again = cache.describe(latin, 6, length, win1252).columns();
        assertArrayEquals(inWin1252, again);
        assertSame(again, cache.describe(latin, 6, length, win1252).columns());
    }

    @Test
    void aByteThatDiffersIsDecodedAnew() {
        RowDescriptionCache cache = new RowDescriptionCache();
        // Same length, same first and last words: only one column's name differs.
        ColumnDescription[] a = {column("aaaa", 23, -1), column("x", 1043, 36), column("zz", 25, -1)};
        ColumnDescription[] b = {column("aaaa", 23, -1), column("y", 1043, 36), column("zz", 25, -1)};
        ColumnDescription[] readA = read(cache, frame(a));
        ColumnDescription[] readB = read(cache, frame(b));
        assertArrayEquals(a, readA);
        assertArrayEquals(b, readB);
        assertNotSame(readA, readB);
        // A type modifier alone (varchar(36) against varchar(37)).
        ColumnDescription[] c = {column("aaaa", 23, -1), column("y", 1043, 37), column("zz", 25, -1)};
        assertArrayEquals(c, read(cache, frame(c)));
        assertArrayEquals(b, read(cache, frame(b)));
    }

    @Test
    void manyStatementsTakingTurnsEachGetTheirOwn() {
        RowDescriptionCache cache = new RowDescriptionCache();
        // More statements than slots: some surely share one, and each must still get its own columns.
        ColumnDescription[][] statements = new ColumnDescription[2_000][];
        for (int i = 0; i < statements.length; i++) {
            statements[i] = new ColumnDescription[] {column("c" + i, 23, -1), column("d", 25, i)};
        }
        for (int round = 0; round < 3; round++) {
            for (ColumnDescription[] statement : statements) {
                assertArrayEquals(statement, read(cache, frame(statement)));
            }
        }
    }

    @Test
    void aLargeFrameIsDecodedEachTime() {
        RowDescriptionCache cache = new RowDescriptionCache();
        ColumnDescription[] wide = new ColumnDescription[600];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = column("column_number_" + i, 23, -1);
        }
        ColumnDescription[] first = read(cache, frame(wide));
        ColumnDescription[] second = read(cache, frame(wide));
        assertArrayEquals(wide, first);
        assertArrayEquals(wide, second);
        assertNotSame(first, second);
        assertEquals(wide.length, second.length);
    }

    @Test
    void aFrameInADirectBufferComparesTheSame() {
        RowDescriptionCache cache = new RowDescriptionCache();
        ColumnDescription[] a = {column("aaaa", 23, -1), column("x", 1043, 36), column("zz", 25, -1)};
        ColumnDescription[] b = {column("aaaa", 23, -1), column("y", 1043, 36), column("zz", 25, -1)};
        ColumnDescription[] first = read(cache, frame(a));
        ByteBuf direct = Unpooled.directBuffer().writeBytes(frame(a));
        assertSame(first, read(cache, direct));
        ByteBuf other = Unpooled.directBuffer().writeBytes(frame(b));
        assertArrayEquals(b, read(cache, other));
        direct.release();
        other.release();
    }
}
