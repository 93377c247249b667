package io.ashlar.backend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.PlanCache;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.parser.statement.PrepareStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements a sharded session prepared with SQL's PREPARE, kept by the proxy (a backend
 * connection's own would tie the session to it, and EXECUTE may route elsewhere), once PostgreSQL took the
 * PREPARE (its error is the PREPARE's, as on PostgreSQL, not the EXECUTE's): EXECUTE runs the
 * prepared text with its arguments in place of its parameters, routed by their values as any
 * statement; DEALLOCATE forgets them, and so do DISCARD ALL and DISCARD PLANS.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-prepare.html">PREPARE</a>
 */
final class SqlPreparedStatements {

    /**
     * A statement prepared with SQL's PREPARE: its analysis and declared parameter types, and for {@code
     * pg_prepared_statements} the PREPARE's text and when it ran.
     */
    private record Prepared(AnalyzedStatement statement, List<String> parameterTypes, String prepareText, long preparedAtMillis) {
    }

    private final PlanCache plans;
    private final Map<String, Prepared> prepared = new HashMap<>();

    SqlPreparedStatements(PlanCache plans) {
        this.plans = plans;
    }

    boolean contains(String name) {
        return prepared.containsKey(name);
    }

    /** The statements as {@code pg_prepared_statements} lists them, added to {@code into}. */
    void list(List<BackendSession.NamedStatement> into) {
        for (Map.Entry<String, Prepared> each : prepared.entrySet()) {
            Prepared statement = each.getValue();
            int count = Math.max(statement.statement().parameterCount(), statement.parameterTypes().size());
            StringBuilder types = new StringBuilder(2 + count * 8).append('{');
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    types.append(',');
                }
                if (i < statement.parameterTypes().size()) {
                    // The type as declared, quoted as an array element (regtype reads the name: int, varchar(10), a schema's type).
                    types.append('"').append(statement.parameterTypes().get(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
                } else {
                    types.append("NULL");
                }
            }
            into.add(new BackendSession.NamedStatement(each.getKey(), statement.prepareText(), statement.preparedAtMillis(),
                    types.append('}').toString(), true));
        }
    }

    /** DISCARD ALL, DISCARD PLANS: every prepared statement goes. */
    void clear() {
        prepared.clear();
    }

    /** How a PREPARE is checked before it is kept: PostgreSQL's own error for what it would refuse. */
    interface Check {
        void check(AnalyzedStatement prepare, PrepareStatement body, Plan inner) throws StatementFailure;
    }

    /** PREPARE name [(types)] AS statement, kept once {@code check} passes it. */
    QueryResult prepare(AnalyzedStatement prepare, PrepareStatement body, Check check) throws StatementFailure {
        if (prepared.containsKey(body.name())) {
            throw new StatementFailure(ErrorFields.error("42P05", "prepared statement \"" + body.name() + "\" already exists"));
        }
        String text = prepare.sql().substring(body.statement().start(), body.statement().end());
        Plan inner;
        try {
            inner = plans.get(text);
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, body.statement().start());
        }
        check.check(prepare, body, inner);
        prepared.put(body.name(), new Prepared(inner.statement(), body.parameterTypes(), prepare.sql(), System.currentTimeMillis()));
        return new TagResult("PREPARE", List.of());
    }

    /**
     * The statement EXECUTE runs: the prepared text with each {@code $n} replaced by its argument
     * (cast to the declared type).
     */
    Plan executed(AnalyzedStatement execute, ExecuteStatement body) throws StatementFailure {
        Prepared statement = prepared.get(body.name());
        if (statement == null) {
            throw new StatementFailure(ErrorFields.error("26000", "prepared statement \"" + body.name() + "\" does not exist"));
        }
        AnalyzedStatement inner = statement.statement();
        int expected = Math.max(inner.parameterCount(), statement.parameterTypes().size());
        if (body.arguments().size() != expected) {
            throw new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D'}, new String[] {
                    ErrorFields.ERROR, ErrorFields.ERROR, "42601",
                    "wrong number of parameters for prepared statement \"" + body.name() + "\"",
                    "Expected " + expected + " parameters but got " + body.arguments().size() + "."}));
        }
        String sql = inner.sql();
        StringBuilder text = new StringBuilder(sql.length() + 16 * expected);
        int at = 0;
        for (var marker : inner.parameters()) {
            text.append(sql, at, marker.range().start());
            int index = marker.number() - 1;
            String argument = execute.sql().substring(body.arguments().get(index).start(), body.arguments().get(index).end());
            if (index < statement.parameterTypes().size()) {
                text.append("CAST(").append(argument).append(" AS ").append(statement.parameterTypes().get(index)).append(')');
            } else {
                text.append('(').append(argument).append(')');
            }
            at = marker.range().end();
        }
        text.append(sql, at, sql.length());
        try {
            return plans.get(text.toString());
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, 0);
        }
    }

    /** DEALLOCATE [name | ALL]. */
    QueryResult deallocate(DeallocateStatement body) throws StatementFailure {
        if (body.name().isEmpty()) {
            prepared.clear();
            return new TagResult("DEALLOCATE ALL", List.of());
        }
        if (prepared.remove(body.name().get()) == null) {
            throw new StatementFailure(ErrorFields.error("26000", "prepared statement \"" + body.name().get() + "\" does not exist"));
        }
        return new TagResult("DEALLOCATE", List.of());
    }
}
