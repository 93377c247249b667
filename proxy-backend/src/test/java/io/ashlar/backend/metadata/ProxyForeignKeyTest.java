package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The record of a key the proxy enforces: written into a placeholder CHECK constraint and read back from it. */
class ProxyForeignKeyTest {

    @Test
    void placeholderCarriesTheKey() {
        ProxyForeignKey key = new ProxyForeignKey("ol_stock_fkey", "public.bmsql_order_line", List.of("ol_supply_w_id", "ol_i_id"),
                "public.bmsql_stock", List.of("s_w_id", "s_i_id"));
        assertEquals("ALTER TABLE public.bmsql_order_line ADD CONSTRAINT ol_stock_fkey CHECK ('ashlar foreign key: FOREIGN KEY"
                + " (ol_supply_w_id, ol_i_id) REFERENCES public.bmsql_stock(s_w_id, s_i_id)' <> '') NOT VALID",
                key.placeholder("public.bmsql_order_line"));
        // as pg_get_constraintdef(oid, true) prints it
        String printed = "CHECK ('ashlar foreign key: FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES public.bmsql_stock(s_w_id, s_i_id)'::text"
                + " <> ''::text) NOT VALID";
        String definition = ProxyForeignKey.fromPlaceholder(printed);
        assertEquals(key.definition(), definition);
        assertEquals(key, ProxyForeignKey.parse("ol_stock_fkey", "public.bmsql_order_line", definition));
    }

    @Test
    void quotedNamesSurviveTheRoundTrip() {
        ProxyForeignKey key = new ProxyForeignKey("Fk", "Sales.Line", List.of("Supply \"W\"", "it'em"), "Sales.St ock", List.of("W", "i"));
        String definition = key.definition();
        assertEquals("FOREIGN KEY (\"Supply \"\"W\"\"\", \"it'em\") REFERENCES \"Sales\".\"St ock\"(\"W\", i)", definition);
        String printed = "CHECK ('ashlar foreign key: " + definition.replace("'", "''") + "'::text <> ''::text) NOT VALID";
        assertEquals(definition, ProxyForeignKey.fromPlaceholder(printed));
        assertEquals(key, ProxyForeignKey.parse("Fk", "Sales.Line", definition));
    }

    @Test
    void otherChecksAreNotKeys() {
        assertEquals("", ProxyForeignKey.fromPlaceholder("CHECK (price > 0::numeric)"));
        assertNull(ProxyForeignKey.parse("k", "public.t", "FOREIGN KEY (a, b) REFERENCES public.p(c)"));
    }
}
