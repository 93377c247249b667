package io.ashlar.merge;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds in-memory shard results from strings and reads merged results back as strings. */
public final class TestRows {

    private TestRows() {
    }

    /** A row of text values; a Java null is SQL NULL. */
    public static byte[][] row(String... values) {
        byte[][] result = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            result[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
        }
        return result;
    }

    /** A shard result with the given column types. */
    public static ListRowCursor shard(int[] types, byte[][]... rows) {
        return new ListRowCursor(types, List.of(rows));
    }

    /** A shard result with the given column types and rows as lists. */
    public static ListRowCursor shard(int[] types, List<byte[][]> rows) {
        return new ListRowCursor(types, rows);
    }

    /** Every row of a cursor, as strings (null for SQL NULL), read through {@code value(i)}; closes it. */
    public static List<List<String>> drain(RowCursor cursor) {
        List<List<String>> result = new ArrayList<>();
        try (cursor) {
            while (cursor.next()) {
                List<String> values = new ArrayList<>();
                byte[][] row = cursor.row();
                if (row.length != cursor.columnCount()) {
                    throw new AssertionError("row() has " + row.length + " values, columnCount() " + cursor.columnCount());
                }
                for (int i = 0; i < cursor.columnCount(); i++) {
                    byte[] value = cursor.value(i);
                    if (!Arrays.equals(value, row[i])) {
                        throw new AssertionError("value(" + i + ") differs from row()[" + i + "]");
                    }
                    values.add(value == null ? null : new String(value, StandardCharsets.UTF_8));
                }
                result.add(values);
            }
        }
        return result;
    }

    /** Expected rows written compactly: each string is one row, values separated by '|', "∅" for NULL. */
    public static List<List<String>> rows(String... rows) {
        List<List<String>> result = new ArrayList<>();
        for (String each : rows) {
            List<String> values = new ArrayList<>();
            for (String value : each.split("\\|", -1)) {
                values.add(value.equals("∅") ? null : value);
            }
            result.add(values);
        }
        return result;
    }
}
