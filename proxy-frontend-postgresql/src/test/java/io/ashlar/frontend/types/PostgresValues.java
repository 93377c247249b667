package io.ashlar.frontend.types;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.Field;
import org.postgresql.core.Query;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.ResultCursor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.Tuple;

/**
 * A real PostgreSQL that answers one query twice: once in text format, exactly the bytes each
 * type's output function wrote (pgjdbc's internal executor, binary transfer off), and once in
 * binary, exactly the bytes each type's send function wrote (binary COPY, which uses typsend for
 * every type).
 */
final class PostgresValues implements AutoCloseable {

    /** One result value in both formats; {@code binary} and {@code text} are null for SQL NULL. */
    record Value(int typeOid, String label, byte[] text, byte[] binary) {
    }

    private static final byte[] COPY_SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    private final EmbeddedPostgres postgres;
    private final BaseConnection connection;

    private PostgresValues(EmbeddedPostgres postgres, BaseConnection connection) {
        this.postgres = postgres;
        this.connection = connection;
    }

    static PostgresValues start() throws IOException, SQLException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        Properties properties = new Properties();
        properties.setProperty("user", "postgres");
        properties.setProperty("binaryTransfer", "false");
        String url = "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres";
        Connection connection = DriverManager.getConnection(url, properties);
        return new PostgresValues(postgres, connection.unwrap(BaseConnection.class));
    }

    void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Every value of every row of {@code select}, row by row, in both formats. */
    List<Value> values(String select) throws SQLException, IOException {
        TextRows text = textRows(select);
        List<byte[][]> binary = binaryRows(select);
        if (binary.size() != text.rows.size()) {
            throw new IllegalStateException("row counts differ: " + text.rows.size() + " in text, " + binary.size()
                    + " in binary");
        }
        List<Value> result = new ArrayList<>();
        for (int r = 0; r < binary.size(); r++) {
            Tuple tuple = text.rows.get(r);
            for (int c = 0; c < text.fields.length; c++) {
                Field field = text.fields[c];
                if (field.getFormat() != Field.TEXT_FORMAT) {
                    throw new IllegalStateException("text column came back in binary: " + field);
                }
                result.add(new Value(field.getOID(), field.getColumnLabel(), tuple.get(c), binary.get(r)[c]));
            }
        }
        return result;
    }

    private record TextRows(Field[] fields, List<Tuple> rows) {
    }

    private TextRows textRows(String select) throws SQLException {
        QueryExecutor executor = connection.getQueryExecutor();
        Query query = executor.createSimpleQuery(select);
        List<TextRows> results = new ArrayList<>();
        executor.execute(query, null, new ResultHandlerBase() {
            @Override
            public void handleResultRows(Query fromQuery, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
                results.add(new TextRows(fields, tuples));
            }
        }, 0, 0, QueryExecutor.QUERY_ONESHOT | QueryExecutor.QUERY_NO_BINARY_TRANSFER
                | QueryExecutor.QUERY_SUPPRESS_BEGIN);
        if (results.size() != 1) {
            throw new IllegalStateException("expected one result set from " + select);
        }
        return results.get(0);
    }

    private List<byte[][]> binaryRows(String select) throws SQLException, IOException {
        ByteArrayOutputStream copied = new ByteArrayOutputStream();
        new CopyManager(connection).copyOut("COPY (" + select + ") TO STDOUT WITH (FORMAT binary)", copied);
        ByteBuffer in = ByteBuffer.wrap(copied.toByteArray());
        byte[] signature = new byte[COPY_SIGNATURE.length];
        in.get(signature);
        if (!Arrays.equals(signature, COPY_SIGNATURE)) {
            throw new IllegalStateException("not a binary COPY stream");
        }
        in.getInt();
        int extensionLength = in.getInt();
        in.position(in.position() + extensionLength);
        List<byte[][]> result = new ArrayList<>();
        for (short fieldCount = in.getShort(); fieldCount != -1; fieldCount = in.getShort()) {
            byte[][] row = new byte[fieldCount][];
            for (int f = 0; f < fieldCount; f++) {
                int length = in.getInt();
                if (length >= 0) {
                    row[f] = new byte[length];
                    in.get(row[f]);
                }
            }
            result.add(row);
        }
        return result;
    }

    @Override
    public void close() throws IOException, SQLException {
        try {
            connection.close();
        } finally {
            postgres.close();
        }
    }
}
