package io.ashlar.bootstrap.config;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Turns YAML text into {@link ConfigNode}s with SnakeYAML's composer only (no constructor, so no object is ever
 * instantiated from the text), under {@link LoaderOptions} limits: a configuration file is small, and a hostile or
 * broken one (alias bombs, recursion, megabytes of text) is refused rather than loaded.
 */
final class YamlConfigParser {

    private static final int MAX_DEPTH = 64;

    private static final int MAX_NODES = 1_000_000;

    private static final int MAX_CODE_POINTS = 8 * 1024 * 1024;

    private final String fileName;

    private int nodes;

    private final Set<Node> converting = Collections.newSetFromMap(new IdentityHashMap<>());

    private YamlConfigParser(String fileName) {
        this.fileName = fileName;
    }

    /**
     * Parses one YAML document.
     *
     * @param fileName file name for error messages
     * @param text the YAML text
     * @return the root node, empty if the document holds nothing (only comments, or blank)
     * @throws ConfigurationException on a syntax error, with line and column
     */
    static Optional<ConfigNode> parse(String fileName, String text) {
        LoaderOptions options = new LoaderOptions();
        options.setMaxAliasesForCollections(100);
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setAllowRecursiveKeys(false);
        options.setProcessComments(false);
        Node root;
        try {
            Composer composer = new Composer(new ParserImpl(new StreamReader(new StringReader(text)), options), new Resolver(), options);
            root = composer.getSingleNode();
        } catch (MarkedYAMLException e) {
            throw syntaxError(fileName, e);
        } catch (YAMLException e) {
            throw new ConfigurationException(fileName + ": invalid YAML: " + e.getMessage(), e);
        }
        if (root == null) {
            return Optional.empty();
        }
        YamlConfigParser parser = new YamlConfigParser(fileName);
        ConfigNode result = parser.convert(root, "", 0);
        if (result instanceof ConfigNode.Scalar scalar && scalar.isNull() && scalar.localTag().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(result);
    }

    private static ConfigurationException syntaxError(String fileName, MarkedYAMLException e) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        StringBuilder message = new StringBuilder(fileName).append(": invalid YAML");
        if (mark != null) {
            message.append(" at line ").append(mark.getLine() + 1).append(", column ").append(mark.getColumn() + 1);
        }
        message.append(": ");
        if (e.getContext() != null) {
            message.append(e.getContext()).append(", ");
        }
        message.append(e.getProblem() == null ? e.getMessage() : e.getProblem().strip());
        return new ConfigurationException(message.toString(), e);
    }

    private ConfigNode convert(Node node, String path, int depth) {
        if (depth > MAX_DEPTH) {
            throw error(node, path, "nested more than " + MAX_DEPTH + " levels deep (a recursive alias?)");
        }
        if (++nodes > MAX_NODES) {
            throw error(node, path, "more than " + MAX_NODES + " YAML nodes (aliases expanding too far?)");
        }
        int line = node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
        int column = node.getStartMark() == null ? 0 : node.getStartMark().getColumn() + 1;
        Optional<String> localTag = localTag(node.getTag());
        if (node instanceof ScalarNode scalar) {
            return new ConfigNode.Scalar(path, line, column, localTag, kindOf(scalar) == ConfigNode.Kind.NULL ? "" : scalar.getValue(), kindOf(scalar));
        }
        if (!converting.add(node)) {
            throw error(node, path, "an alias refers to a node that contains it (recursive YAML)");
        }
        try {
            return switch (node) {
                case SequenceNode sequence -> convertSequence(sequence, path, line, column, localTag, depth);
                case MappingNode mapping -> convertMapping(mapping, path, line, column, localTag, depth);
                default -> throw error(node, path, "unsupported YAML node");
            };
        } finally {
            converting.remove(node);
        }
    }

    private ConfigNode.Sequence convertSequence(SequenceNode sequence, String path, int line, int column,
                                                Optional<String> localTag, int depth) {
        List<Node> values = sequence.getValue();
        List<ConfigNode> items = new ArrayList<>(values.size());
        String prefix = localTag.map(tag -> path.isEmpty() ? tag : path + "." + tag).orElse(path);
        for (int i = 0; i < values.size(); i++) {
            items.add(convert(values.get(i), prefix + "[" + i + "]", depth + 1));
        }
        return new ConfigNode.Sequence(path, line, column, localTag, Collections.unmodifiableList(items));
    }

    private ConfigNode.Mapping convertMapping(MappingNode mapping, String path, int line, int column,
                                              Optional<String> localTag, int depth) {
        String prefix = localTag.map(tag -> path.isEmpty() ? tag : path + "." + tag).orElse(path);
        Map<String, ConfigNode.Entry> explicit = new LinkedHashMap<>();
        Map<String, ConfigNode.Entry> merged = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            Node keyNode = tuple.getKeyNode();
            if (Tag.MERGE.equals(keyNode.getTag())) {
                mergeInto(merged, tuple.getValueNode(), path, depth);
                continue;
            }
            if (!(keyNode instanceof ScalarNode scalarKey)) {
                throw error(keyNode, path, "a key must be a plain name, got a " + (keyNode instanceof MappingNode ? "mapping" : "list"));
            }
            String key = kindOf(scalarKey) == ConfigNode.Kind.NULL ? "" : scalarKey.getValue();
            String childPath = prefix.isEmpty() ? key : prefix + "." + key;
            ConfigNode value = convert(tuple.getValueNode(), childPath, depth + 1);
            ConfigNode.Entry entry = new ConfigNode.Entry(key, keyNode.getStartMark().getLine() + 1, keyNode.getStartMark().getColumn() + 1, value);
            ConfigNode.Entry previous = explicit.putIfAbsent(key, entry);
            if (previous != null) {
                throw new ConfigurationException(fileName + ": " + describePath(path) + "duplicate key '" + key + "' at line "
                        + entry.line() + " (first at line " + previous.line() + ")");
            }
        }
        if (merged.isEmpty()) {
            return new ConfigNode.Mapping(path, line, column, localTag, Collections.unmodifiableMap(explicit));
        }
        Map<String, ConfigNode.Entry> result = new LinkedHashMap<>(merged);
        result.putAll(explicit);
        return new ConfigNode.Mapping(path, line, column, localTag, Collections.unmodifiableMap(result));
    }

    private void mergeInto(Map<String, ConfigNode.Entry> merged, Node source, String path, int depth) {
        if (source instanceof SequenceNode sequence) {
            for (Node each : sequence.getValue()) {
                mergeInto(merged, each, path, depth);
            }
            return;
        }
        if (!(convert(source, path, depth + 1) instanceof ConfigNode.Mapping mapping)) {
            throw error(source, path, "a merge key '<<' needs a mapping or a list of mappings");
        }
        for (ConfigNode.Entry each : mapping.entries().values()) {
            merged.putIfAbsent(each.key(), each);
        }
    }

    private ConfigurationException error(Node node, String path, String message) {
        StringBuilder result = new StringBuilder(fileName).append(": ").append(describePath(path)).append(message);
        if (node.getStartMark() != null) {
            result.append(" (line ").append(node.getStartMark().getLine() + 1).append(')');
        }
        return new ConfigurationException(result.toString());
    }

    private static String describePath(String path) {
        return path.isEmpty() ? "" : path + ": ";
    }

    private static Optional<String> localTag(Tag tag) {
        String value = tag.getValue();
        return value.startsWith("!") && !value.startsWith("!!") ? Optional.of(value) : Optional.empty();
    }

    private static ConfigNode.Kind kindOf(ScalarNode node) {
        Tag tag = node.getTag();
        if (Tag.NULL.equals(tag)) {
            return ConfigNode.Kind.NULL;
        }
        if (Tag.STR.equals(tag)) {
            return ConfigNode.Kind.STRING;
        }
        if (Tag.INT.equals(tag)) {
            return ConfigNode.Kind.INT;
        }
        if (Tag.FLOAT.equals(tag)) {
            return ConfigNode.Kind.FLOAT;
        }
        if (Tag.BOOL.equals(tag)) {
            return ConfigNode.Kind.BOOL;
        }
        if (localTag(tag).isPresent() && node.getValue().isEmpty()) {
            return ConfigNode.Kind.NULL;
        }
        return localTag(tag).isPresent() ? ConfigNode.Kind.STRING : ConfigNode.Kind.OTHER;
    }
}
