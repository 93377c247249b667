package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A data source whose database prints dates and intervals in other styles by default ({@code ALTER DATABASE ... SET
 * DateStyle}, {@code IntervalStyle}) than the default data source: a sharded session whose client names neither
 * carries the default data source's to every connection, so that rows of several shards reach the client in the one
 * style it was told at login, and the merges read them in it.
 */
final class DataSourceStylesTest {

    private static final String DATABASE = "styles_db";

    private static ShardedProxyFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = ShardedProxyFixture.start(DATABASE, List.of("ds_0", "ds_1"), (dataSource, admin, shard) -> {
            if (dataSource.equals("ds_1")) {
                admin.execute("ALTER DATABASE ds_1 SET DateStyle TO 'German'");
                admin.execute("ALTER DATABASE ds_1 SET IntervalStyle TO 'iso_8601'");
            }
            shard.execute("CREATE TABLE t (id int PRIMARY KEY, d date NOT NULL, i interval NOT NULL)");
            shard.execute("INSERT INTO t SELECT n, date '2024-01-01' + n, n * interval '1 day 2 hours' FROM generate_series(1, 6) n"
                    + " WHERE n % 2 = " + (dataSource.equals("ds_0") ? 0 : 1));
        }, """
                rules:
                  - !SHARDING
                    tables:
                      t:
                        actualDataNodes: ds_${0..1}.t
                        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: id_inline}}
                    shardingAlgorithms:
                      id_inline:
                        type: INLINE
                        props: {algorithm-expression: 'ds_${id % 2}'}
                """);
    }

    @AfterAll
    static void stop() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void everyShardPrintsInTheStyleTheClientWasTold() throws Exception {
        try (RawConnection client = new RawConnection(fixture.port())) {
            List<RawConnection.Message> login = client.logIn(ShardedProxyFixture.USER, DATABASE, ShardedProxyFixture.PASSWORD);
            assertEquals("ISO, MDY", parameterStatus(login, "DateStyle"));
            assertEquals("postgres", parameterStatus(login, "IntervalStyle"));
            assertEquals(List.of("1|2024-01-02|1 day 02:00:00", "2|2024-01-03|2 days 04:00:00", "3|2024-01-04|3 days 06:00:00",
                    "4|2024-01-05|4 days 08:00:00", "5|2024-01-06|5 days 10:00:00", "6|2024-01-07|6 days 12:00:00"),
                    rows(client, "SELECT id, d, i FROM t ORDER BY id"));
            assertEquals(List.of("6 days 12:00:00|2024-01-02|21 days 42:00:00"), rows(client, "SELECT max(i), min(d), sum(i) FROM t"));
            assertEquals(List.of("3|2024-01-04|3 days 06:00:00"), rows(client, "SELECT id, d, i FROM t WHERE id = 3"));
        }
    }

    private static String parameterStatus(List<RawConnection.Message> messages, String name) {
        for (RawConnection.Message each : messages) {
            if (each.type() == 'S') {
                String body = new String(each.body(), StandardCharsets.UTF_8);
                int nul = body.indexOf('\0');
                if (body.substring(0, nul).equals(name)) {
                    return body.substring(nul + 1, body.indexOf('\0', nul + 1));
                }
            }
        }
        return null;
    }

    /** Each DataRow's values joined by '|', or the error's fields. */
    private static List<String> rows(RawConnection client, String sql) throws IOException {
        client.send(RawConnection.query(sql));
        List<String> result = new ArrayList<>();
        for (RawConnection.Message each : client.readUntilReady()) {
            if (each.type() == 'E') {
                result.add("error " + each.fields());
            } else if (each.type() == 'D') {
                ByteBuffer body = ByteBuffer.wrap(each.body());
                int count = body.getShort();
                StringBuilder row = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    int length = body.getInt();
                    row.append(i == 0 ? "" : "|").append(new String(each.body(), body.position(), length, StandardCharsets.UTF_8));
                    body.position(body.position() + length);
                }
                result.add(row.toString());
            }
        }
        return result;
    }
}
