package io.ashlar.bootstrap.it;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLXML;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Renders what a JDBC client sees (values through several getters, column metadata, errors with
 * every field the server sent) as plain strings, so that a test can compare the proxy's answer
 * with the server's own with one {@code assertEquals} and print a readable difference. A getter
 * that throws is rendered as its failure, so that a different failure is a difference too.
 */
final class ResultDump {

    /** A JDBC call whose result or failure is rendered. */
    interface SqlCall<T> {
        T call() throws SQLException;
    }

    private ResultDump() {
    }

    /** pgjdbc's getString of a binary bytea is the array's identity ({@code [B@1b6d3586}), different every run. */
    private static final Pattern ARRAY_IDENTITY = Pattern.compile("\\[B@[0-9a-f]+");

    /** The call's result, or its failure with its SQLSTATE. */
    static String attempt(SqlCall<?> call) {
        try {
            return ARRAY_IDENTITY.matcher(render(call.call())).replaceAll("[B@(identity)");
        } catch (SQLException e) {
            return "SQLException[" + e.getSQLState() + "] " + e.getMessage();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    static String render(Object value) throws SQLException {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Array array) {
            return "Array<" + array.getBaseTypeName() + ">" + Arrays.deepToString(new Object[] {array.getArray()});
        }
        if (value instanceof byte[] bytes) {
            return "bytes:" + HexFormat.of().formatHex(bytes);
        }
        if (value instanceof SQLXML xml) {
            return "SQLXML:" + xml.getString();
        }
        if (value instanceof Object[] values) {
            return Arrays.deepToString(values);
        }
        return value.getClass().getSimpleName() + ":" + value;
    }

    /** Every row left in the result set: each column through getObject and getString, with wasNull. */
    static List<String> rows(ResultSet rs) throws SQLException {
        ResultSetMetaData metaData = rs.getMetaData();
        int columns = metaData.getColumnCount();
        List<String> result = new ArrayList<>();
        while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
                int column = i;
                row.append(metaData.getColumnLabel(i)).append('=').append(attempt(() -> rs.getObject(column)))
                        .append(" | str=").append(attempt(() -> rs.getString(column)))
                        .append(" | null=").append(attempt(rs::wasNull)).append("; ");
            }
            result.add(row.toString());
        }
        return result;
    }

    /**
     * Column metadata as pgjdbc exposes it: names, type, type name, precision and scale (from the
     * type modifier), nullability and the base table and column (from the table OID and column
     * number of RowDescription), and the transfer format.
     */
    static List<String> columns(ResultSetMetaData metaData) throws SQLException {
        PGResultSetMetaData pg = metaData.unwrap(PGResultSetMetaData.class);
        List<String> result = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            int column = i;
            result.add(metaData.getColumnName(i) + " label=" + metaData.getColumnLabel(i)
                    + " type=" + metaData.getColumnType(i) + " typeName=" + metaData.getColumnTypeName(i)
                    + " class=" + attempt(() -> metaData.getColumnClassName(column))
                    + " precision=" + attempt(() -> metaData.getPrecision(column))
                    + " scale=" + attempt(() -> metaData.getScale(column))
                    + " nullable=" + attempt(() -> metaData.isNullable(column))
                    + " autoIncrement=" + attempt(() -> metaData.isAutoIncrement(column))
                    + " baseSchema=" + attempt(() -> pg.getBaseSchemaName(column))
                    + " baseTable=" + attempt(() -> pg.getBaseTableName(column))
                    + " baseColumn=" + attempt(() -> pg.getBaseColumnName(column))
                    + " format=" + attempt(() -> pg.getFormat(column)));
        }
        return result;
    }

    /** An error as the server sent it: every field of its ErrorResponse. */
    static String error(SQLException e) {
        if (!(e instanceof PSQLException psql) || psql.getServerErrorMessage() == null) {
            return "SQLException[" + e.getSQLState() + "] " + e.getMessage();
        }
        ServerErrorMessage m = psql.getServerErrorMessage();
        return "severity=" + m.getSeverity() + " sqlState=" + m.getSQLState() + " message=" + m.getMessage()
                + " detail=" + m.getDetail() + " hint=" + m.getHint() + " position=" + m.getPosition()
                + " internalPosition=" + m.getInternalPosition() + " internalQuery=" + m.getInternalQuery()
                + " where=" + m.getWhere() + " schema=" + m.getSchema() + " table=" + m.getTable()
                + " column=" + m.getColumn() + " datatype=" + m.getDatatype() + " constraint=" + m.getConstraint()
                + " file=" + m.getFile() + " line=" + m.getLine() + " routine=" + m.getRoutine();
    }
}
