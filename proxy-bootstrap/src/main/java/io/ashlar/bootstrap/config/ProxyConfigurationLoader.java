package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a ShardingSphere-Proxy 5.1-5.5 conf/ directory: {@code server.yaml} (5.5: {@code global.yaml}) and one
 * logical database per {@code config-*.yaml} (5.5: {@code database-*.yaml}), the latter in file name order.
 *
 * <p>A configuration written for ShardingSphere-Proxy loads unchanged, or fails with a {@link ConfigurationException}
 * that names the file, the key and what Ashlar expected or does not support. Files holding only comments (as in
 * ShardingSphere's sample conf/) are skipped.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/">ShardingSphere-Proxy YAML configuration</a>
 */
public final class ProxyConfigurationLoader {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConfigurationLoader.class);

    private static final Pattern DATABASE_FILE = Pattern.compile("(config|database)-.+\\.ya?ml");

    private static final List<String> SERVER_FILES = List.of("server.yaml", "global.yaml");

    private ProxyConfigurationLoader() {
    }

    /**
     * Loads a conf/ directory.
     *
     * @param confDir the directory holding server.yaml and config-*.yaml
     * @return the server configuration (defaults when there is no server.yaml) and the logical databases
     * @throws ConfigurationException if a file cannot be read or is not a valid configuration
     */
    public static ProxyConfiguration load(Path confDir) {
        if (!Files.isDirectory(confDir)) {
            throw new ConfigurationException(confDir + ": not a directory (expected a conf/ directory with server.yaml and config-*.yaml)");
        }
        ServerConfig server = ServerConfig.DEFAULTS;
        List<Path> serverFiles = new ArrayList<>();
        for (String each : SERVER_FILES) {
            Path file = confDir.resolve(each);
            if (Files.isRegularFile(file)) {
                serverFiles.add(file);
            }
        }
        if (serverFiles.size() > 1) {
            throw new ConfigurationException(confDir + ": both server.yaml and global.yaml are present; keep one (global.yaml is ShardingSphere 5.5's name for server.yaml)");
        }
        if (serverFiles.isEmpty()) {
            LOG.info("{}: no server.yaml: standalone mode, user root/root, default props", confDir);
        } else {
            server = loadServer(serverFiles.get(0).getFileName().toString(), read(serverFiles.get(0)));
        }
        List<LogicalDatabaseConfig> databases = new ArrayList<>();
        Map<String, String> fileOfDatabase = new HashMap<>();
        for (Path each : databaseFiles(confDir)) {
            String fileName = each.getFileName().toString();
            Optional<LogicalDatabaseConfig> database = DatabaseConfigReader.read(fileName, read(each));
            if (database.isEmpty()) {
                LOG.info("{}: empty, skipped", fileName);
                continue;
            }
            String previous = fileOfDatabase.putIfAbsent(database.get().name(), fileName);
            if (previous != null) {
                throw new ConfigurationException(fileName + ": logical database '" + database.get().name() + "' is already configured by " + previous);
            }
            databases.add(database.get());
        }
        LOG.info("{}: {} user(s), {} logical database(s){}", confDir, server.users().size(), databases.size(),
                databases.isEmpty() ? "" : ": " + String.join(", ", databases.stream().map(LogicalDatabaseConfig::name).toList()));
        return new ProxyConfiguration(server, databases);
    }

    /**
     * Reads a server.yaml text (for example one stored in the registry).
     *
     * @param fileName the name used in error messages
     * @param yamlText the YAML text
     * @return the server configuration; defaults for an empty text
     */
    public static ServerConfig loadServer(String fileName, String yamlText) {
        return ServerConfigReader.read(fileName, yamlText);
    }

    /**
     * Reads one logical database from its config-*.yaml text (for example one stored in the registry).
     *
     * @param fileName the name used in error messages
     * @param yamlText the YAML text
     * @return the logical database
     * @throws ConfigurationException if the text is not a valid logical database, or holds nothing
     */
    public static LogicalDatabaseConfig loadDatabase(String fileName, String yamlText) {
        return DatabaseConfigReader.read(fileName, yamlText)
                .orElseThrow(() -> new ConfigurationException(fileName + ": holds no logical database (the YAML is empty)"));
    }

    private static List<Path> databaseFiles(Path confDir) {
        List<Path> result = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(confDir)) {
            for (Path each : files) {
                if (DATABASE_FILE.matcher(each.getFileName().toString()).matches() && Files.isRegularFile(each)) {
                    result.add(each);
                }
            }
        } catch (IOException e) {
            throw new ConfigurationException(confDir + ": cannot list the directory: " + e.getMessage(), e);
        }
        result.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return result;
    }

    private static String read(Path file) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigurationException(file.getFileName() + ": not UTF-8 text", e);
        } catch (IOException e) {
            throw new ConfigurationException(file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
