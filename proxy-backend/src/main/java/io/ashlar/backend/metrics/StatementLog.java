package io.ashlar.backend.metrics;

import io.ashlar.backend.datasource.ParameterValues;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * server.yaml's {@code sql-show} and slow-query log for one logical database's sessions, or null on the database
 * when both are off (then a session pays one null check per statement).
 *
 * <p>{@code sql-show} writes what ShardingSphere-Proxy writes, under its logger name {@code ShardingSphere-SQL}, so
 * that log settings and scripts made for it keep working: {@code Logic SQL: <the client's SQL>}, then one
 * {@code Actual SQL: <data source> ::: <its SQL> [::: [parameters]]} per unit; with {@code sql-simple},
 * {@code Actual SQL(simple): [<data sources>] ::: <units>} instead of the units.
 *
 * <p>The slow-query log ({@code slow-query-threshold-milliseconds}), logger {@code io.ashlar.slow-query}, one WARN
 * line per request that took longer: its database, user, total time, the stages' times and where it went.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/props/">sql-show</a>
 */
public final class StatementLog {

    private static final Logger SQL = LoggerFactory.getLogger("ShardingSphere-SQL");
    private static final Logger SLOW = LoggerFactory.getLogger("io.ashlar.slow-query");

    private final boolean sqlShow;
    private final boolean sqlSimple;
    private final long slowNanos;

    /**
     * @param slowMillis the slow-query threshold, 0 for none
     */
    public StatementLog(boolean sqlShow, boolean sqlSimple, long slowMillis) {
        this.sqlShow = sqlShow;
        this.sqlSimple = sqlSimple;
        this.slowNanos = slowMillis * 1_000_000L;
    }

    /** Whether each statement is logged ({@code sql-show}). */
    public boolean showsSql() {
        return sqlShow;
    }

    /** Whether a request that took {@code nanos} is logged as slow. */
    public boolean slow(long nanos) {
        return slowNanos > 0 && nanos > slowNanos;
    }

    /** {@code Logic SQL: ...}. */
    public void logic(String sql) {
        SQL.info("Logic SQL: {}", sql);
    }

    /** {@code Actual SQL: ds ::: sql [::: [parameters]]} of one unit. */
    public void actual(String dataSource, String sql, ParameterValues parameters) {
        if (parameters.values().length == 0) {
            SQL.info("Actual SQL: {} ::: {}", dataSource, sql);
        } else {
            SQL.info("Actual SQL: {} ::: {} ::: {}", dataSource, sql, parameters(parameters));
        }
    }

    /** {@code Actual SQL(simple): [ds_0, ds_1] ::: n}. */
    public void actualSimple(java.util.Collection<String> dataSources, int units) {
        SQL.info("Actual SQL(simple): {} ::: {}", dataSources, units);
    }

    /** Whether the units are written in short ({@code sql-simple}). */
    public boolean simple() {
        return sqlSimple;
    }

    /** One slow request: {@code what} says where it went and what each stage took. */
    public void slow(String database, String user, long nanos, String what) {
        SLOW.warn("slow query: {} ms on {} as {}: {}", millis(nanos), database, user, what);
    }

    /** Milliseconds with three decimals, without String.format. */
    public static String millis(long nanos) {
        long micros = nanos / 1000;
        String fraction = Long.toString(1000 + micros % 1000).substring(1);
        return micros / 1000 + "." + fraction;
    }

    /**
     * Parameters as ShardingSphere prints them, in a list: text values as they are, binary integers (int2, int4, int8,
     * as pgjdbc sends them) as numbers, other binary values as their length.
     */
    static String parameters(ParameterValues parameters) {
        StringBuilder result = new StringBuilder("[");
        for (int i = 0; i < parameters.values().length; i++) {
            if (i > 0) {
                result.append(", ");
            }
            byte[] value = parameters.values()[i];
            if (value == null) {
                result.append("NULL");
            } else if (parameters.formats().length > i && parameters.formats()[i] == 1) {
                int type = parameters.types().length > i ? parameters.types()[i] : 0;
                if ((type == 21 && value.length == 2) || (type == 23 && value.length == 4) || (type == 20 && value.length == 8)) {
                    long number = 0;
                    for (byte each : value) {
                        number = (number << 8) | (each & 0xff);
                    }
                    result.append(value.length == 8 ? number : value.length == 4 ? (int) number : (short) number);
                } else {
                    result.append("<binary, ").append(value.length).append(" bytes>");
                }
            } else {
                result.append(new String(value, StandardCharsets.UTF_8));
            }
        }
        return result.append(']').toString();
    }
}
