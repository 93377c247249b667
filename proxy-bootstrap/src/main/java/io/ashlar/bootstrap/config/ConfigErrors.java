package io.ashlar.bootstrap.config;

import java.util.Collection;
import java.util.Locale;

/** Builds the messages of {@link ConfigurationException}: {@code file: key.path: what (line n, column m)}. */
final class ConfigErrors {

    private ConfigErrors() {
    }

    static ConfigurationException at(String fileName, ConfigNode node, String message) {
        return at(fileName, node.path(), node.line(), node.column(), message);
    }

    static ConfigurationException at(String fileName, String path, int line, int column, String message) {
        StringBuilder result = new StringBuilder(fileName).append(": ");
        if (!path.isEmpty()) {
            result.append(path).append(": ");
        }
        result.append(message);
        if (line > 0) {
            result.append(" (line ").append(line).append(", column ").append(column).append(')');
        }
        return new ConfigurationException(result.toString());
    }

    /** {@code unknown key 'shardingColum' (expected one of: shardingColumn, shardingAlgorithmName)}. */
    static String unknownKey(String key, Collection<String> known) {
        if (known.size() <= 20) {
            return "unknown key '" + key + "' (expected one of: " + String.join(", ", known) + ")";
        }
        String suggestion = closest(key, known);
        return "unknown key '" + key + "'" + (suggestion.isEmpty() ? "" : " (did you mean '" + suggestion + "'?)")
                + "; see docs/configuration.md for the keys Ashlar accepts";
    }

    /** The known name nearest to {@code key} by edit distance, or empty if none is near. */
    static String closest(String key, Collection<String> known) {
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        String lower = key.toLowerCase(Locale.ROOT);
        for (String each : known) {
            int distance = editDistance(lower, each.toLowerCase(Locale.ROOT));
            if (distance < bestDistance) {
                bestDistance = distance;
                best = each;
            }
        }
        return bestDistance <= Math.max(2, key.length() / 4) ? best : "";
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
