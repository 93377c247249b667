package io.ashlar.backend.sharding;

import io.ashlar.backend.metadata.ConstraintMetadata;
import io.ashlar.backend.metadata.LogicalTable;
import io.ashlar.backend.metadata.TableMetadata;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.route.RecursivePlan;

/**
 * The primary keys of a recursive plan's intermediate results. PostgreSQL lets {@code GROUP BY o.order_id} stand for
 * every column of {@code o} when {@code order_id} is its primary key (functional dependency), which it sees only on a
 * table with that key, and {@code LIKE} copies none: for a statement that groups, each intermediate result is given
 * its table's primary key once filled (one index build, not one insertion per row).
 */
public final class IntermediateKeys {

    private IntermediateKeys() {
    }

    /**
     * The statements giving the plan's intermediate results their tables' primary keys, separated by semicolons, where
     * the statement's GROUP BY names every column of the key (or groups by an output column's number); empty elsewhere.
     */
    public static String sql(LogicalDatabase database, RecursivePlan plan) {
        java.util.Set<String> grouped = plan.grouped();
        if (grouped.isEmpty()) {
            return "";
        }
        StringBuilder keys = new StringBuilder();
        for (RecursivePlan.Intermediate each : plan.intermediates()) {
            LogicalTable table = database.catalog().schema().table("public." + each.table().logicTable());
            String columns = table == null ? null : primaryKeyColumns(table.metadata());
            if (columns != null && (grouped.contains(RecursivePlan.ORDINAL) || allGrouped(columns, grouped))) {
                keys.append(keys.isEmpty() ? "" : ";").append("ALTER TABLE ").append(each.name()).append(" ADD PRIMARY KEY ").append(columns);
            }
        }
        return keys.toString();
    }

    /** Whether every column of a key's column list ({@code ("a", "B c")}) is among the grouped names. */
    static boolean allGrouped(String columns, java.util.Set<String> grouped) {
        int start = 1;
        boolean quoted = false;
        for (int i = 1; i < columns.length(); i++) {
            char c = columns.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && (c == ',' || c == ')')) {
                String name = columns.substring(start, i).trim();
                if (name.length() > 1 && name.charAt(0) == '"') {
                    name = name.substring(1, name.length() - 1).replace("\"\"", "\"");
                }
                if (!grouped.contains(name)) {
                    return false;
                }
                start = i + 1;
            }
        }
        return true;
    }

    /** The column list of the table's primary key, {@code ("a", "b")} as pg_get_constraintdef prints it, or null for none. */
    static String primaryKeyColumns(TableMetadata table) {
        for (ConstraintMetadata constraint : table.constraints()) {
            String definition = constraint.definition();
            if (constraint.kind() != 'p' || !definition.startsWith("PRIMARY KEY (")) {
                continue;
            }
            boolean quoted = false;
            for (int i = "PRIMARY KEY (".length(); i < definition.length(); i++) {
                char c = definition.charAt(i);
                if (c == '"') {
                    quoted = !quoted;
                } else if (c == ')' && !quoted) {
                    return definition.substring("PRIMARY KEY ".length(), i + 1);
                }
            }
        }
        return null;
    }
}
