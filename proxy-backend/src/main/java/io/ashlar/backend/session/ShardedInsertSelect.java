package io.ashlar.backend.session;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.route.RouteException;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;

/**
 * {@code INSERT INTO sharded (cols) SELECT ...} whose SELECT the route cannot run on each target shard (it reads
 * tables sharded otherwise, or spans shards): the SELECT runs as the proxy runs any read (merged, or finished by
 * PostgreSQL over intermediate results), then its rows are inserted as one multi-row {@code INSERT ... VALUES}, which
 * the proxy routes row by row by the target's sharding column, in one transaction across the data sources (the
 * client's block, or outside one the INSERT's own, after the read's: see {@link #run}). Each value is
 * written as the text PostgreSQL gave, cast to the SELECT column's type where it is a built-in one, so that
 * PostgreSQL's assignment cast to the target column happens as in INSERT ... SELECT; ON CONFLICT and RETURNING are kept
 * (RETURNING rows in the SELECT's order).
 *
 * <p>The rows are held in the proxy: their text counts against server.yaml's {@code proxy-statement-memory-limit},
 * past which the statement fails with 54000, as reads across shards do.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-insert.html">INSERT</a>
 */
final class ShardedInsertSelect {

    /** What the statement needs of its session. */
    interface Session {
        /** Runs a statement as the session runs any (routed, merged, or planned recursively). */
        QueryResult run(Plan plan, ParameterValues parameters, ResultSink sink) throws StatementFailure;

        /** The statement failed: a transaction block in force fails. */
        void failed();

        /** The charset of the session's client_encoding: the rows read are in it. */
        default java.nio.charset.Charset text() {
            return StandardCharsets.UTF_8;
        }
    }

    private final LogicalDatabase database;
    private final Session session;

    ShardedInsertSelect(LogicalDatabase database, Session session) {
        this.database = database;
        this.session = session;
    }

    /** Whether a statement the route refused is an INSERT ... SELECT into a sharded table that this runs instead. */
    static boolean applies(AnalyzedStatement statement, ShardingRules rules, RouteException refusal) {
        if (!"0A000".equals(refusal.sqlState()) || !statement.isComplete() || !(statement.body() instanceof InsertStatement insert)
                || insert.query().isEmpty() || !startsWithInsert(statement.sql())) {
            return false;
        }
        return rules.find(statement.tables().get(insert.target()).name().name()).orElse(null) instanceof ShardingTable;
    }

    /** Whether the text starts with INSERT (not WITH ..., whose CTEs the SELECT alone would lose). */
    private static boolean startsWithInsert(String sql) {
        int i = 0;
        while (i < sql.length() && (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(')) {
            i++;
        }
        return sql.regionMatches(true, i, "insert", 0, 6);
    }

    QueryResult run(Plan plan, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        AnalyzedStatement statement = plan.statement();
        InsertStatement insert = (InsertStatement) statement.body();
        String sql = statement.sql();
        SourceRange query = insert.query().orElseThrow();
        Plan select;
        try {
            select = database.plans().get(query.text(sql));
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, query.start());
        }
        long limit = database.statementMemoryLimit();
        // Outside a block, the read and the INSERT run one after the other, each as a statement of its own (the INSERT
        // in one transaction across data sources): a read finished by PostgreSQL makes temporary tables, and a
        // transaction that did could not be prepared to commit the INSERT on several data sources atomically.
        try {
            StringBuilder values = new StringBuilder(256);
            int count = 0;
            QueryResult rows = session.run(select, parameters, ResultSink.DISCARD);
            try {
                ColumnDescription[] columns = rows.columns();
                while (rows.next()) {
                    values.append(count == 0 ? "(" : ", (");
                    for (int c = 0; c < columns.length; c++) {
                        byte[] value = rows.row().value(c);
                        values.append(c == 0 ? "" : ", ");
                        if (value == null) {
                            values.append("NULL");
                        } else {
                            values.append(SqlText.literal(new String(value, session.text())));
                            String type = builtInType(columns[c].typeOid());
                            if (type != null) {
                                values.append("::").append(type);
                            }
                        }
                    }
                    values.append(')');
                    count++;
                    if (2L * values.length() > limit) {
                        throw new StatementFailure(ErrorFields.error("54000", "the rows INSERT ... SELECT reads across shards exceed "
                                + ShardedExecution.MEMORY_LIMIT_SETTING + " (" + limit + " bytes)",
                                "insert them in parts (narrow the SELECT), or raise " + ShardedExecution.MEMORY_LIMIT_SETTING + " in server.yaml"));
                    }
                }
            } finally {
                rows.close();
            }
            QueryResult result;
            if (count == 0) {
                result = new TagResult("INSERT 0 0", new ArrayList<>(0));
            } else {
                String text = sql.substring(0, query.start()) + "VALUES " + values + sql.substring(query.end());
                result = session.run(database.plans().uncached(text), parameters, sink);
            }
            return result;
        } catch (StatementFailure failure) {
            session.failed();
            throw failure;
        }
    }

    /**
     * The name of a built-in type by its OID (fixed in every PostgreSQL), to cast a value to the SELECT column's type:
     * the target column then gets it through PostgreSQL's assignment cast, as INSERT ... SELECT does. Null for other
     * types, whose value goes as an untyped literal, read by the target column's type.
     */
    private static String builtInType(int oid) {
        return switch (oid) {
            case 16 -> "bool";
            case 17 -> "bytea";
            case 20 -> "int8";
            case 21 -> "int2";
            case 23 -> "int4";
            case 25 -> "text";
            case 114 -> "json";
            case 700 -> "float4";
            case 701 -> "float8";
            case 1042 -> "bpchar";
            case 1043 -> "varchar";
            case 1082 -> "date";
            case 1083 -> "time";
            case 1114 -> "timestamp";
            case 1184 -> "timestamptz";
            case 1186 -> "interval";
            case 1700 -> "numeric";
            case 2950 -> "uuid";
            case 3802 -> "jsonb";
            default -> null;
        };
    }
}
