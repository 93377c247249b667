package io.ashlar.bootstrap.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration of {@code ashlar demo}: the templates under {@code /demo} on the class path
 * ({@code server.yaml}, {@code config-sharding.yaml}) with the embedded backends' URLs and credentials filled in,
 * and the per-data-source statements of {@code schema.sql} that create and fill the demo's actual tables.
 */
public final class DemoConfiguration {

    private static final Pattern PLACEHOLDER = Pattern.compile("@([A-Z][A-Z0-9_]*)@");

    private static final Pattern SECTION = Pattern.compile("--\\s*@dataSource:\\s*(\\S+)\\s*");

    private DemoConfiguration() {
    }

    /**
     * Loads the demo configuration for two backends.
     *
     * @param ds0Url JDBC URL of data source ds_0
     * @param ds1Url JDBC URL of data source ds_1
     * @param user backend user of both
     * @param password backend password of both, empty for none
     * @return the demo's server configuration and its logical database {@code sharding_db}
     */
    public static ProxyConfiguration load(String ds0Url, String ds1Url, String user, String password) {
        Map<String, String> values = Map.of("DS0_URL", ds0Url, "DS1_URL", ds1Url, "DS_USER", user, "DS_PASSWORD", password);
        ServerConfig server = ProxyConfigurationLoader.loadServer("demo/server.yaml", resource("server.yaml"));
        String database = renderDoubleQuoted(resource("config-sharding.yaml"), values);
        return new ProxyConfiguration(server, List.of(ProxyConfigurationLoader.loadDatabase("demo/config-sharding.yaml", database)));
    }

    /**
     * The statements of {@code demo/schema.sql} for one data source: those of its own sections and of the
     * {@code *} sections, in file order.
     *
     * @param dataSourceName {@code ds_0} or {@code ds_1}
     * @return SQL statements without their trailing semicolons
     */
    public static List<String> schemaStatements(String dataSourceName) {
        return schemaStatements(resource("schema.sql"), dataSourceName);
    }

    static List<String> schemaStatements(String schemaSql, String dataSourceName) {
        List<String> result = new ArrayList<>();
        boolean active = false;
        StringBuilder statement = new StringBuilder();
        for (String line : schemaSql.split("\n", -1)) {
            Matcher section = SECTION.matcher(line.strip());
            if (section.matches()) {
                active = "*".equals(section.group(1)) || dataSourceName.equals(section.group(1));
                continue;
            }
            String trimmed = line.strip();
            if (!active || trimmed.isEmpty() || trimmed.startsWith("--") && statement.isEmpty()) {
                continue;
            }
            if (!statement.isEmpty()) {
                statement.append('\n');
            }
            statement.append(line);
            if (trimmed.endsWith(";")) {
                String text = statement.toString().strip();
                result.add(text.substring(0, text.length() - 1));
                statement.setLength(0);
            }
        }
        if (!statement.isEmpty()) {
            throw new ConfigurationException("demo/schema.sql: the last statement for " + dataSourceName + " has no ';'");
        }
        return result;
    }

    /** Replaces {@code @NAME@} placeholders that stand inside double-quoted YAML scalars. */
    static String renderDoubleQuoted(String template, Map<String, String> values) {
        Matcher matcher = PLACEHOLDER.matcher(template);
        StringBuilder result = new StringBuilder(template.length() + 64);
        while (matcher.find()) {
            String value = values.get(matcher.group(1));
            if (value == null) {
                throw new ConfigurationException("demo template: no value for placeholder @" + matcher.group(1) + "@");
            }
            matcher.appendReplacement(result, Matcher.quoteReplacement(value.replace("\\", "\\\\").replace("\"", "\\\"")));
        }
        matcher.appendTail(result);
        return result.toString();
    }

    private static String resource(String name) {
        try (InputStream in = DemoConfiguration.class.getResourceAsStream("/demo/" + name)) {
            if (in == null) {
                throw new ConfigurationException("demo/" + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigurationException("demo/" + name + ": " + e.getMessage(), e);
        }
    }
}
