package io.ashlar.frontend.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which texts are admin commands, which are PostgreSQL's own, and which are admin syntax the proxy does not know. */
final class AdminCommandTest {

    @Test
    void pgbouncersCommandsInAnyCaseWithOrWithoutASemicolon() {
        assertInstanceOf(AdminCommand.ShowPools.class, AdminCommand.parse("SHOW POOLS"));
        assertInstanceOf(AdminCommand.ShowClients.class, AdminCommand.parse("  show clients;"));
        assertInstanceOf(AdminCommand.ShowServers.class, AdminCommand.parse("Show Servers ;"));
        assertInstanceOf(AdminCommand.ShowStats.class, AdminCommand.parse("show\nstats"));
    }

    @Test
    void distSqlUnderItsNamesOfEachVersion() {
        assertEquals(new AdminCommand.ShowStorageUnits(null), AdminCommand.parse("SHOW STORAGE UNITS"));
        assertEquals(new AdminCommand.ShowStorageUnits("db"), AdminCommand.parse("SHOW STORAGE UNITS FROM db"));
        assertEquals(new AdminCommand.ShowStorageUnits(null), AdminCommand.parse("SHOW SCHEMA RESOURCES"));
        assertEquals(new AdminCommand.ShowStorageUnits("Db"), AdminCommand.parse("SHOW RESOURCES FROM \"Db\""));
        assertEquals(new AdminCommand.ShowShardingTableRules(null, null), AdminCommand.parse("SHOW SHARDING TABLE RULES"));
        assertEquals(new AdminCommand.ShowShardingTableRules("t_order", "sharding_db"),
                AdminCommand.parse("SHOW SHARDING TABLE RULE t_order FROM sharding_db"));
        assertEquals(new AdminCommand.ShowShardingAlgorithms(null), AdminCommand.parse("SHOW SHARDING ALGORITHMS;"));
        assertEquals(new AdminCommand.Preview("SELECT * FROM t WHERE a = ';'"),
                AdminCommand.parse("PREVIEW SELECT * FROM t WHERE a = ';';"));
    }

    @Test
    void postgresqlsShowOfASettingIsNoAdminCommand() {
        for (String each : new String[] {"SHOW search_path", "SHOW ALL", "show transaction isolation level",
                "SHOW pool_mode", "SELECT 1", "SHOWPOOLS", "showing"}) {
            assertNull(AdminCommand.parse(each), each);
        }
        assertFalse(AdminCommand.mayBe("SELECT 'show pools'"));
    }

    @Test
    void adminSyntaxTheProxyDoesNotKnowIsUnknown() {
        for (String each : new String[] {"SHOW POOLS extra", "SHOW CLIENTS all", "SHOW SHARDING TABLES",
                "SHOW STORAGE UNIT", "SHOW SHARDING TABLE RULES FROM", "SHOW SHARDING TABLE RULES FROM a b",
                "SHOW SCHEMA RESOURCES x", "PREVIEW", "PREVIEW ;", "PREVIEW SELECT 'open"}) {
            assertInstanceOf(AdminCommand.Unknown.class, AdminCommand.parse(each), each);
        }
    }

    @Test
    void propertiesPrintAsShardingSpheres54JsonObject() {
        assertEquals("{}", AdminConsole.json(Map.of()));
        assertEquals("{\"algorithm-expression\":\"ds_${user_id % 2}\"}",
                AdminConsole.json(Map.of("algorithm-expression", "ds_${user_id % 2}")));
        assertEquals("{\"a\\\"b\":\"c\\\\d\\u000a\"}", AdminConsole.json(Map.of("a\"b", "c\\d\n")));
    }
}
