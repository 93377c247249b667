package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.TextRows;
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
            if (dataSource.health().isDown()) {
                continue; // its health said why, once; its tables are looked up when a statement names them
            }
            BackendConnection connection;
            try {
                connection = dataSource.borrow();
            } catch (SQLException e) {
                LOG.warn("cannot read the tables of data source {}: {}", dataSource.name(), e.getMessage());
                continue;
            }
            try {
                for (String[] row : TextRows.query(connection, TABLES_SQL)) {
                    result.putIfAbsent(row[0], dataSource.name());
                }
            } catch (SQLException e) {
                LOG.warn("cannot read the tables of data source {}: {}", dataSource.name(), e.getMessage());
            } finally {
                connection.release();
            }
        }
        return result;
    }
}
