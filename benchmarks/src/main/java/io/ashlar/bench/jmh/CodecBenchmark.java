package io.ashlar.bench.jmh;

import io.ashlar.backend.execute.ArrayRowView;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.DataRow;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.PgFrontendDecoder;
import io.ashlar.protocol.StartupMessage;
import io.ashlar.protocol.Sync;
import io.ashlar.frontend.types.BinaryEncoders;
import io.ashlar.frontend.types.ValueEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The PostgreSQL v3 codec of proxy-frontend-postgresql, through its public entry points.
 * <ul>
 * <li>{@link #decodeBind}: a Bind as pgjdbc sends it for a prepared New-Order statement (named
 * statement, three parameters: text int4, binary int8, text timestamp; one result format),
 * decoded by {@link PgFrontendDecoder} in a Netty pipeline from a direct buffer of the
 * channel's allocator (Netty's default, as the proxy's server uses), as a socket read delivers it.</li>
 * <li>{@link #decodeBindExecuteSync}: what {@code pgbench -M prepared} sends per statement after
 * the first, Bind + Execute + Sync in one read: three messages.</li>
 * <li>{@link #encodeDataRow}: a DataRow of five text columns (int8, text, numeric, timestamp,
 * NULL) into a reused direct buffer, by {@link DataRow#encode(ByteBuf, DataRow.Values, DataRow.ValueWriter[])},
 * the encoder the frontend's row path ({@code OutputBuffer.dataRow}) calls, from the row view it gets.</li>
 * <li>{@link #encodeDataRowBinaryInt8}: the same row with its int8 column converted to binary on
 * the way, as for a client that asked for binary results (pgjdbc does for int8 once a statement
 * is prepared server-side), by the same encoder with the int8 column's binary encoder.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

    private ByteBufAllocator allocator;
    private EmbeddedChannel channel;
    private byte[] bind;
    private byte[] bindExecuteSync;
    private final ArrayRowView row = new ArrayRowView();
    private ByteBuf out;
    private ValueEncoder[] int8Binary;

    @Setup
    public void setUp() {
        channel = new EmbeddedChannel(new PgFrontendDecoder());
        allocator = channel.alloc();
        ByteBuf startup = allocator.buffer();
        StartupMessage.of(Map.of("user", "root", "database", "sharding_db")).encode(startup);
        channel.writeInbound(startup);
        if (!(channel.readInbound() instanceof StartupMessage)) {
            throw new IllegalStateException("the decoder did not take the startup packet");
        }
        Bind message = new Bind("", "S_1", new short[] {0, 1, 0},
                new byte[][] {ascii("3"), ByteBuffer.allocate(8).putLong(77_777L).array(), ascii("2026-11-22 10:00:00.123456")},
                new short[] {0});
        bind = bytes(message, null, null);
        bindExecuteSync = bytes(message, new Execute("", 0), Sync.INSTANCE);
        row.of(new byte[][] {ascii("1000042"), ascii("customer-42 of warehouse 3"), ascii("1234.56"),
                ascii("2026-11-22 10:00:00.123456"), null});
        out = allocator.directBuffer(4096);
        int8Binary = new ValueEncoder[5];
        int8Binary[0] = BinaryEncoders.find(20).orElseThrow();
    }

    @TearDown
    public void tearDown() {
        out.release();
        channel.finishAndReleaseAll();
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private byte[] bytes(Bind message, Execute execute, Sync sync) {
        ByteBuf buffer = allocator.heapBuffer();
        message.encode(buffer);
        if (execute != null) {
            execute.encode(buffer);
            sync.encode(buffer);
        }
        byte[] result = new byte[buffer.readableBytes()];
        buffer.readBytes(result);
        buffer.release();
        return result;
    }

    private void read(byte[] wire) {
        ByteBuf in = allocator.directBuffer(wire.length);
        in.writeBytes(wire);
        channel.writeInbound(in);
    }

    @Benchmark
    public Object decodeBind() {
        read(bind);
        return channel.readInbound();
    }

    @Benchmark
    public void decodeBindExecuteSync(Blackhole blackhole) {
        read(bindExecuteSync);
        blackhole.consume(channel.readInbound());
        blackhole.consume(channel.readInbound());
        blackhole.consume(channel.readInbound());
    }

    @Benchmark
    public int encodeDataRow() {
        out.clear();
        DataRow.encode(out, row, null);
        return out.writerIndex();
    }

    @Benchmark
    public int encodeDataRowBinaryInt8() {
        out.clear();
        DataRow.encode(out, row, int8Binary);
        return out.writerIndex();
    }
}
