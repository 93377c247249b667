package io.ashlar.backend.execute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ashlar.protocol.DataRow;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A backend's DataRow kept as its body: relayed byte for byte, and read as values when something asks. */
final class FrameRowViewTest {

    private static final byte[][] VALUES = {
        "42".getBytes(StandardCharsets.UTF_8), null, new byte[0], "héllo".getBytes(StandardCharsets.UTF_8), {0, (byte) 0xff, 0},
    };

    /** The DataRow as a backend sends it, and its body (after the type byte and the length). */
    private static byte[] frame() {
        ByteBuf out = Unpooled.buffer();
        DataRow.encode(out, VALUES);
        return ByteBufUtil.getBytes(out);
    }

    private static byte[] body(byte[] frame) {
        return java.util.Arrays.copyOfRange(frame, 5, frame.length);
    }

    @Test
    void goesOutAsTheBackendSentIt() {
        byte[] frame = frame();
        ByteBuf out = Unpooled.buffer();
        DataRow.encode(out, new FrameRowView().of(body(frame)), null);
        assertArrayEquals(frame, ByteBufUtil.getBytes(out));
    }

    @Test
    void readsItsValuesWhenAsked() {
        FrameRowView view = new FrameRowView().of(body(frame()));
        assertEquals(VALUES.length, view.columnCount());
        for (int i = 0; i < VALUES.length; i++) {
            if (VALUES[i] == null) {
                assertNull(view.value(i), "column " + i);
            } else {
                assertArrayEquals(VALUES[i], view.value(i), "column " + i);
            }
        }
        // Reused for the next row: its own values, not the previous row's.
        ByteBuf next = Unpooled.buffer();
        DataRow.encode(next, new byte[][] {"7".getBytes(StandardCharsets.UTF_8)});
        view.of(body(ByteBufUtil.getBytes(next)));
        assertEquals(1, view.columnCount());
        assertArrayEquals("7".getBytes(StandardCharsets.UTF_8), view.value(0));
    }

    @Test
    void aColumnConvertedOnTheWayIsWrittenFromTheValues() {
        byte[] frame = frame();
        DataRow.ValueWriter upper = (text, offset, length, out) -> {
            out.writeInt(length);
            for (int i = 0; i < length; i++) {
                out.writeByte(Character.toUpperCase(text[offset + i]));
            }
        };
        DataRow.ValueWriter[] writers = new DataRow.ValueWriter[VALUES.length];
        writers[0] = upper;
        ByteBuf viaFrame = Unpooled.buffer();
        DataRow.encode(viaFrame, new FrameRowView().of(body(frame)), writers);
        ByteBuf viaArrays = Unpooled.buffer();
        DataRow.encode(viaArrays, new ArrayRowView().of(VALUES), writers);
        assertArrayEquals(ByteBufUtil.getBytes(viaArrays), ByteBufUtil.getBytes(viaFrame));
    }
}
