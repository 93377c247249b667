package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class YamlConfigParserTest {

    @Test
    void keepsLocalTagsAsDataAndPathsThroughThem() {
        ConfigNode.Mapping root = (ConfigNode.Mapping) YamlConfigParser.parse("f.yaml", "rules:\n- !SHARDING\n  tables: {}\n- !SINGLE\n").orElseThrow();
        List<ConfigNode> rules = ((ConfigNode.Sequence) root.entries().get("rules").value()).items();
        assertEquals(Optional.of("!SHARDING"), rules.get(0).localTag());
        assertEquals("rules[0].!SHARDING.tables", ((ConfigNode.Mapping) rules.get(0)).entries().get("tables").value().path());
        assertEquals(Optional.of("!SINGLE"), rules.get(1).localTag());
        assertEquals(2, rules.get(0).line());
    }

    @Test
    void globalTagsThatWouldInstantiateClassesAreRefused() {
        String message = assertThrows(ConfigurationException.class, () -> YamlConfigParser.parse("f.yaml",
                "x: !!javax.script.ScriptEngineManager [!!java.net.URLClassLoader [[]]]\n")).getMessage();
        assertTrue(message.startsWith("f.yaml: invalid YAML at line 1, column 4: ") && message.contains("Global tag is not allowed"), message);
    }

    @Test
    void anchorsAndMergeKeysWork() {
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-x.yaml", """
                databaseName: db
                dataSources:
                  ds_0: &pool
                    url: jdbc:postgresql://h/ds_0
                    username: app
                    maxPoolSize: 8
                  ds_1:
                    <<: *pool
                    url: jdbc:postgresql://h/ds_1
                """);
        assertEquals("jdbc:postgresql://h/ds_1", database.dataSources().get("ds_1").url());
        assertEquals("app", database.dataSources().get("ds_1").username());
        assertEquals(8, database.dataSources().get("ds_1").maxPoolSize());
    }

    @Test
    void scalarKindsFollowYaml() {
        ConfigNode.Mapping root = (ConfigNode.Mapping) YamlConfigParser.parse("f.yaml", "a: 4\nb: '4'\nc:\nd: true\ne: 4.0\n").orElseThrow();
        assertEquals(ConfigNode.Kind.INT, ((ConfigNode.Scalar) root.entries().get("a").value()).kind());
        assertEquals(ConfigNode.Kind.STRING, ((ConfigNode.Scalar) root.entries().get("b").value()).kind());
        assertEquals(ConfigNode.Kind.NULL, ((ConfigNode.Scalar) root.entries().get("c").value()).kind());
        assertEquals(ConfigNode.Kind.BOOL, ((ConfigNode.Scalar) root.entries().get("d").value()).kind());
        assertEquals("4.0", ((ConfigNode.Scalar) root.entries().get("e").value()).text());
    }

    @Test
    void emptyDocumentsAreEmpty() {
        assertEquals(Optional.empty(), YamlConfigParser.parse("f.yaml", ""));
        assertEquals(Optional.empty(), YamlConfigParser.parse("f.yaml", "# comment\n---\n"));
    }

    @Test
    void aSecondDocumentIsAnError() {
        String message = assertThrows(ConfigurationException.class, () -> YamlConfigParser.parse("f.yaml", "a: 1\n---\nb: 2\n")).getMessage();
        assertTrue(message.startsWith("f.yaml: invalid YAML at line 2"), message);
    }

    @Test
    void aliasBombsAreRefused() {
        StringBuilder yaml = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 12; i++) {
            yaml.append("a").append(i).append(": &a").append(i).append(" [");
            for (int j = 0; j < 10; j++) {
                yaml.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
            }
            yaml.append("]\n");
        }
        assertThrows(ConfigurationException.class, () -> YamlConfigParser.parse("f.yaml", yaml.toString()));
    }
}
