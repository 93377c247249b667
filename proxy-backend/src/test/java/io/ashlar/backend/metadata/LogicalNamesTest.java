package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogicalNamesTest {

    @Test
    void objectsNamedAfterAnActualTableTakeTheLogicalName() {
        assertEquals("t_order_pkey", LogicalNames.derived("t_order_1_pkey", "t_order_1", "t_order"));
        assertEquals("t_order_user_id_fkey", LogicalNames.derived("t_order_1_user_id_fkey", "t_order_1", "t_order"));
        assertEquals("idx_status", LogicalNames.derived("idx_status_t_order_1", "t_order_1", "t_order"));
        assertEquals("t_order", LogicalNames.derived("t_order_1", "t_order_1", "t_order"));
        assertEquals("pk_custom", LogicalNames.derived("pk_custom", "t_order_1", "t_order"));
        assertEquals("t_user_pkey", LogicalNames.derived("t_user_pkey", "t_user", "t_user"));
        assertEquals("t_order_10_pkey", LogicalNames.derived("t_order_10_pkey", "t_order_1", "t_order"));
    }

    @Test
    void qualifiedRelationsAndRegclassLiteralsAreRenamed() {
        Map<String, String> relations = Map.of("public.t_order_1", "public.t_order",
                "public.t_order_1_id_seq", "public.t_order_id_seq");
        assertEquals("nextval('public.t_order_id_seq'::regclass)",
                LogicalNames.text("nextval('public.t_order_1_id_seq'::regclass)", relations));
        assertEquals("FOREIGN KEY (order_id) REFERENCES public.t_order(order_id) ON DELETE CASCADE",
                LogicalNames.text("FOREIGN KEY (order_id) REFERENCES public.t_order_1(order_id) ON DELETE CASCADE", relations));
        assertEquals("CHECK (t_order_1 > 0)", LogicalNames.text("CHECK (t_order_1 > 0)", relations), "a column of that name stays");
        assertEquals("'x.public.t_order_1'", LogicalNames.text("'x.public.t_order_1'", relations));
    }

    @Test
    void anActualTablesDefinitionInLogicalNames() {
        TableMetadata actual = new TableMetadata("public", "t_order_1", false,
                List.of(new ColumnMetadata("id", "integer", true, "nextval('public.t_order_1_id_seq'::regclass)", "", "", "", ""),
                        new ColumnMetadata("parent", "integer", false, "", "", "", "", "a comment")),
                List.of(new ConstraintMetadata("t_order_1_pkey", 'p', "PRIMARY KEY (id)"),
                        new ConstraintMetadata("t_order_1_parent_fkey", 'f', "FOREIGN KEY (parent) REFERENCES public.t_order_1(id)")),
                List.of(new IndexMetadata("idx_parent_t_order_1", "CREATE INDEX idx_parent_t_order_1 ON public.t_order_1 USING btree (parent)", "")),
                List.of(new SequenceMetadata("t_order_1_id_seq", "id", "AS integer")), "orders");
        TableMetadata logical = new LogicalNames(Map.of("public.t_order_1", "public.t_order")).logical(actual, "t_order");
        assertEquals(new TableMetadata("public", "t_order", false,
                List.of(new ColumnMetadata("id", "integer", true, "nextval('public.t_order_id_seq'::regclass)", "", "", "", ""),
                        new ColumnMetadata("parent", "integer", false, "", "", "", "", "a comment")),
                List.of(new ConstraintMetadata("t_order_pkey", 'p', "PRIMARY KEY (id)"),
                        new ConstraintMetadata("t_order_parent_fkey", 'f', "FOREIGN KEY (parent) REFERENCES public.t_order(id)")),
                List.of(new IndexMetadata("idx_parent", "CREATE INDEX idx_parent ON public.t_order USING btree (parent)", "")),
                List.of(new SequenceMetadata("t_order_id_seq", "id", "AS integer")), "orders"), logical);
    }

    @Test
    void differencesAreToldInWords() {
        TableMetadata first = table(List.of(column("id", "integer"), column("name", "text")));
        assertEquals("", first.difference(table(List.of(column("id", "integer"), column("name", "text")))));
        assertEquals("column name character varying(20) NULL instead of text NULL",
                first.difference(table(List.of(column("id", "integer"), column("name", "character varying(20)")))));
        assertEquals("columns (name, id) instead of (id, name)",
                first.difference(table(List.of(column("name", "text"), column("id", "integer")))));
    }

    @Test
    void refreshTableMetadataIsReadAsShardingSphereWritesIt() throws Exception {
        assertEquals(new RefreshTableMetadata(null, "public", null), RefreshTableMetadata.parse("REFRESH TABLE METADATA"));
        assertEquals(new RefreshTableMetadata("t_order", "public", null), RefreshTableMetadata.parse("refresh table metadata t_order;"));
        assertEquals(new RefreshTableMetadata("t_order", "app", "ds_1"),
                RefreshTableMetadata.parse("REFRESH TABLE METADATA t_order FROM STORAGE UNIT ds_1 SCHEMA app"));
        assertEquals(new RefreshTableMetadata("T", "app", "ds_0"), RefreshTableMetadata.parse("REFRESH TABLE METADATA app.\"T\" FROM RESOURCE ds_0"));
        assertEquals(new RefreshTableMetadata(null, "public", "ds_0"), RefreshTableMetadata.parse("REFRESH TABLE METADATA FROM STORAGE UNIT ds_0"));
        assertEquals("42601", org.junit.jupiter.api.Assertions.assertThrows(io.ashlar.backend.execute.StatementFailure.class,
                () -> RefreshTableMetadata.parse("REFRESH TABLE METADATA t_order FROM ds_0")).fields().sqlState());
    }

    @Test
    void theCatalogDatabaseUrlNamesIt() {
        assertEquals("jdbc:postgresql://h1:5432,h2/sharding_db?ssl=true",
                CatalogDatabase.url("jdbc:postgresql://h1:5432,h2/ds_0?ssl=true", "sharding_db"));
        assertEquals("jdbc:opengauss://h/a%20b", CatalogDatabase.url("jdbc:opengauss://h", "a b"));
    }

    private static TableMetadata table(List<ColumnMetadata> columns) {
        return new TableMetadata("public", "t", false, columns, List.of(), List.of(), List.of(), "");
    }

    private static ColumnMetadata column(String name, String type) {
        return new ColumnMetadata(name, type, false, "", "", "", "", "");
    }
}
