package io.ashlar.bootstrap.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node of a parsed YAML configuration file, with the key path and line that error messages name.
 *
 * <p>The loader never lets SnakeYAML construct objects: it composes the node graph and converts it into these
 * three shapes. ShardingSphere's local tags ({@code !SHARDING}, {@code !AUTHORITY}) stay plain data
 * ({@link #localTag()}), so no YAML text can make the loader instantiate a class.
 */
sealed interface ConfigNode permits ConfigNode.Mapping, ConfigNode.Sequence, ConfigNode.Scalar {

    /** Key path from the document root, {@code rules[0].!SHARDING.tables}; empty for the root. */
    String path();

    /** 1-based line of the node in its file. */
    int line();

    /** 1-based column of the node in its file. */
    int column();

    /** A local tag such as {@code !SHARDING}, if the node carries one. */
    Optional<String> localTag();

    /** What the node is, for "expected ..., got ..." messages. */
    String describe();

    /**
     * A mapping key and its value.
     *
     * @param key the key text
     * @param line 1-based line of the key
     * @param column 1-based column of the key
     * @param value the value
     */
    record Entry(String key, int line, int column, ConfigNode value) {
    }

    /**
     * A YAML mapping. Merge keys ({@code <<: *anchor}) are already applied; duplicate keys were refused.
     *
     * @param entries entries by key, in file order
     */
    record Mapping(String path, int line, int column, Optional<String> localTag, Map<String, Entry> entries)
            implements ConfigNode {

        /** The prefix of the children's paths: {@code rules[0].!SHARDING} for a tagged rule. */
        String childPath() {
            return localTag.map(tag -> path.isEmpty() ? tag : path + "." + tag).orElse(path);
        }

        @Override
        public String describe() {
            return "a mapping";
        }
    }

    /** A YAML sequence. */
    record Sequence(String path, int line, int column, Optional<String> localTag, List<ConfigNode> items)
            implements ConfigNode {

        @Override
        public String describe() {
            return "a list";
        }
    }

    /**
     * A YAML scalar.
     *
     * @param text the scalar exactly as written (without quotes); empty for null
     * @param kind what YAML 1.1 resolves the scalar to
     */
    record Scalar(String path, int line, int column, Optional<String> localTag, String text, Kind kind)
            implements ConfigNode {

        boolean isNull() {
            return kind == Kind.NULL;
        }

        @Override
        public String describe() {
            return kind == Kind.NULL ? "nothing" : "'" + text + "'";
        }
    }

    /** The implicit type YAML gives a scalar: a quoted {@code "4"} is a STRING, a plain {@code 4} an INT. */
    enum Kind {
        NULL, STRING, INT, FLOAT, BOOL, OTHER
    }
}
