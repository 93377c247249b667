package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The conf/ directory as a whole: which files count, in which order, and conflicts between them. */
class ProxyConfigurationLoaderTest {

    @TempDir
    Path conf;

    private void write(String name, String text) throws IOException {
        Files.writeString(conf.resolve(name), text);
    }

    private static String database(String name) {
        return "databaseName: " + name + "\ndataSources:\n  ds_0:\n    url: jdbc:postgresql://h/" + name + "\n";
    }

    @Test
    void withoutAnyFileGivesDefaultsAndNoDatabase() {
        ProxyConfiguration config = ProxyConfigurationLoader.load(conf);
        assertEquals(ServerConfig.DEFAULTS, config.server());
        assertEquals(List.of(), config.databases());
    }

    @Test
    void loadsDatabaseFilesSortedByNameAndSkipsOthers() throws IOException {
        write("config-b.yaml", database("b_db"));
        write("config-a.yml", database("a_db"));
        write("database-c.yaml", database("c_db"));
        write("config-empty.yaml", "# nothing here\n");
        write("other.yaml", "this: is not read\n");
        write("config-.yaml", "neither: is this\n");
        Files.createDirectory(conf.resolve("config-dir.yaml"));
        assertEquals(List.of("a_db", "b_db", "c_db"), ProxyConfigurationLoader.load(conf).databases().stream().map(LogicalDatabaseConfig::name).toList());
    }

    @Test
    void sameDatabaseInTwoFilesIsAnError() throws IOException {
        write("config-a.yaml", database("db"));
        write("config-b.yaml", database("db"));
        assertEquals("config-b.yaml: logical database 'db' is already configured by config-a.yaml",
                assertThrows(ConfigurationException.class, () -> ProxyConfigurationLoader.load(conf)).getMessage());
    }

    @Test
    void serverYamlAndGlobalYamlTogetherIsAnError() throws IOException {
        write("server.yaml", "props:\n  sql-show: true\n");
        write("global.yaml", "props:\n  sql-show: false\n");
        assertTrue(assertThrows(ConfigurationException.class, () -> ProxyConfigurationLoader.load(conf)).getMessage()
                .contains("both server.yaml and global.yaml are present"));
    }

    @Test
    void missingDirectoryAndBadBytesAreErrors() throws IOException {
        assertTrue(assertThrows(ConfigurationException.class, () -> ProxyConfigurationLoader.load(conf.resolve("nope"))).getMessage()
                .endsWith("nope: not a directory (expected a conf/ directory with server.yaml and config-*.yaml)"));
        Files.write(conf.resolve("config-bad.yaml"), new byte[] {'a', ':', ' ', (byte) 0xC3, (byte) 0x28});
        assertEquals("config-bad.yaml: not UTF-8 text", assertThrows(ConfigurationException.class, () -> ProxyConfigurationLoader.load(conf)).getMessage());
    }
}
