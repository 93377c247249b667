package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The transport asked for is the one used when the machine has it, and the best one at hand otherwise; a backend
 * connection made with io_uring logs in, answers a query, and carries the keepalive it was asked for. The build's
 * machines (Linux x86_64, kernel 5.x or later) have io_uring: where a kernel refuses it, the test says why and
 * fails rather than passing without having run.
 */
final class TransportTest {

    @Test
    void anEmptyOrUnknownRequestGetsIoUringAndEpollAndNioAreThereWhenAskedFor() {
        Transport byDefault = Transport.choose("");
        assertSame(Transport.IO_URING, byDefault, () -> "io_uring is not available here: " + Transport.ioUringRefusal());
        assertSame(byDefault, Transport.choose("kqueue"));
        assertSame(Transport.EPOLL, Transport.choose("epoll"));
        assertSame(Transport.EPOLL, Transport.choose(" EPOLL "));
        assertSame(Transport.choose(System.getProperty(Transport.PROPERTY, "")), Transport.current());
        assertSame(Transport.NIO, Transport.choose("nio"));
        assertSame(Transport.NIO, Transport.choose(" NIO "));
        for (Transport each : Transport.values()) {
            assertSame(each, Transport.of(each.socketChannel()));
            assertSame(each, Transport.of(each.serverChannel()));
        }
    }

    @Test
    void ioUringIsChosenWhenAskedForAndTheKernelHasIt() {
        assertTrue(IoUring.isAvailable(), () -> "io_uring is not available here: " + Transport.ioUringRefusal());
        assertNull(Transport.ioUringRefusal());
        assertSame(Transport.IO_URING, Transport.choose("io_uring"));
        assertSame(Transport.IO_URING, Transport.choose("IO_URING"));
    }

    @Test
    void aBackendConnectionOverIoUringLogsInAndAnswers() throws Exception {
        assertTrue(IoUring.isAvailable(), () -> "io_uring is not available here: " + Transport.ioUringRefusal());
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, Transport.IO_URING.ioHandlerFactory());
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            DataSourceConfig config = new DataSourceConfig("ds", "jdbc:postgresql://127.0.0.1:" + postgres.getPort()
                    + "/postgres", "postgres", "", 10_000, 60_000, 1_800_000, 2, 0, Map.of())
                    .withHealthCheck(30_000, 5_000, 30);
            EventLoop loop = group.next();
            ServerLink link = ServerLink.connect(loop, Transport.IO_URING.socketChannel(), ConnectSpec.of(config))
                    .get(20, TimeUnit.SECONDS);
            try {
                assertEquals(30, link.channel().config().getOption(IoUringChannelOption.TCP_KEEPIDLE));
                assertEquals(60_000, link.channel().config().getOption(IoUringChannelOption.TCP_USER_TIMEOUT));
                List<String> replies = LinkPoolTest.query(link, "SELECT 40 + 2, repeat('x', 100000)");
                assertEquals("C:SELECT 1|", replies.get(replies.size() - 2), replies::toString);
                String row = replies.get(1);
                assertTrue(row.startsWith("D:") && row.contains("42"), row.substring(0, Math.min(40, row.length())));
                assertTrue(row.endsWith("x".repeat(100_000)), "the long row arrives whole");
            } finally {
                link.close();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
