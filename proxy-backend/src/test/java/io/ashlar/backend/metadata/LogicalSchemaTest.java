package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LogicalSchemaTest {

    /** t_order with actual tables t_order_0 (OID 16400 on ds_0, column b dropped: c is number 3) and t_order_1 (OID 16400 on ds_1). */
    private static final LogicalSchema SCHEMA = new LogicalSchema(1, Map.of("public.t_order", new LogicalTable(LogicalTable.Kind.SHARDED,
            new TableMetadata("public", "t_order", false, List.of(), List.of(), List.of(), List.of(), ""),
            List.of(new ActualTable(0, "ds_0", "t_order_0", 16400, new short[] {0, 1, 0, 2}),
                    new ActualTable(1, "ds_1", "t_order_1", 16400, new short[] {0, 1, 2})), List.of(), false)),
            Map.of("public.t_order", 90001), Set.of(), Map.of("t_order_0", "t_order", "t_order_1", "t_order"), 2);

    @Test
    void columnsOfAnActualTableAreTheLogicalTables() {
        ColumnDescription[] columns = {new ColumnDescription("a", 16400, (short) 1, 23, (short) 4, -1),
                new ColumnDescription("c", 16400, (short) 3, 25, (short) -1, -1),
                new ColumnDescription("?column?", 0, (short) 0, 23, (short) 4, -1)};
        assertArrayEquals(new ColumnDescription[] {new ColumnDescription("a", 90001, (short) 1, 23, (short) 4, -1),
                new ColumnDescription("c", 90001, (short) 2, 25, (short) -1, -1), columns[2]}, SCHEMA.logicalColumns(0, columns));
        ColumnDescription[] other = {new ColumnDescription("x", 16401, (short) 1, 23, (short) 4, -1)};
        assertSame(other, SCHEMA.logicalColumns(0, other), "a table of no logical table: unchanged, not copied");
        assertSame(other, SCHEMA.logicalColumns(5, other));
    }

    @Test
    void errorsNameTheLogicalTableAndWhatIsNamedAfterIt() {
        ErrorFields error = new ErrorFields(new byte[] {'S', 'C', 'M', 'D', 'W', 't', 'n'}, new String[] {"ERROR", "23505",
                "duplicate key value violates unique constraint \"t_order_1_pkey\"", "Key (id)=(1) already exists in t_order_0.",
                "COPY t_order_1, line 3", "t_order_1", "idx_status_t_order_0"});
        assertEquals(List.of("ERROR", "23505", "duplicate key value violates unique constraint \"t_order_pkey\"",
                "Key (id)=(1) already exists in t_order.", "COPY t_order, line 3", "t_order", "idx_status"),
                List.of(SCHEMA.logical(error).values()));
        ErrorFields unrelated = ErrorFields.error("42703", "column \"t_order_10\" of t_orders does not exist");
        assertSame(unrelated, SCHEMA.logical(unrelated));
    }
}
