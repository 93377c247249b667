package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StreamingHandler;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the tables each data source holds, so that a table no rule names (a "single" table) is
 * routed to the data source that has it. Read at start; tables created through the proxy later
 * are added as they are created.
 */
public final class SingleTableScanner {

    private static final Logger LOG = LoggerFactory.getLogger(SingleTableScanner.class);
    private static final String TABLES_SQL = "SELECT c.relname FROM pg_catalog.pg_class c"
            + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')"
            + " AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'"
            + " ORDER BY 1";

    private SingleTableScanner() {
    }

    /** Table name → the first data source (in configuration order) that has it. Unreachable data sources are skipped. */
    public static Map<String, String> scan(List<BackendDataSource> dataSources) {
        Map<String, String> result = new LinkedHashMap<>();
        for (BackendDataSource dataSource : dataSources) {
            BackendConnection connection;
            try {
                connection = dataSource.borrow();
            } catch (SQLException e) {
                LOG.warn("cannot read the tables of data source {}: {}", dataSource.name(), e.getMessage());
                continue;
            }
            StreamingHandler handler = new StreamingHandler(new ResultSink() {
                @Override
                public void columns(ColumnDescription[] columns) {
                }

                @Override
                public void row(RowValues row) {
                    result.putIfAbsent(new String(row.value(0), StandardCharsets.UTF_8), dataSource.name());
                }

                @Override
                public void complete(String commandTag) {
                }

                @Override
                public void empty() {
                }

                @Override
                public void notice(ErrorFields notice) {
                }

                @Override
                public void parameterStatus(String name, String value) {
                }
            });
            try {
                connection.executeSimple(TABLES_SQL, handler);
            } catch (SQLException e) {
                handler.handleError(e);
            } finally {
                connection.release();
            }
            if (handler.error() != null) {
                LOG.warn("cannot read the tables of data source {}: {}", dataSource.name(), handler.error().getMessage());
            }
        }
        return result;
    }
}
