package io.ashlar.sharding;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The names an algorithm may route to (the data sources of a table, or the actual tables of one
 * data source), fixed once when the rule is compiled, with the lookups that turn a computed name
 * or suffix into an index so that routing returns plain {@code int}s.
 *
 * <p>Suffix matching follows ShardingSphere's {@code DataNodeInfo}: the algorithms that compute a
 * number (MOD, HASH_MOD, the range and interval algorithms) look for
 * {@code prefix + suffix}, where the suffix is left-padded with {@code '0'} to the shortest
 * suffix length among the names, and the prefix is a name with its trailing digits removed. So
 * with {@code t_order_0 .. t_order_3} value 6 under {@code MOD 4} picks {@code t_order_2}, and
 * with {@code t_order_00 .. t_order_15} it picks {@code t_order_06}.
 *
 * <p>Immutable and safe to share between threads.
 */
public final class ShardingTargets {

    private final List<String> names;

    private final Map<String, Integer> indexByName;

    private final Map<String, Integer> indexByLowerCaseName;

    private final String suffixPrefix;

    private final int suffixMinLength;

    private final TargetSet all;

    private final TargetSet none;

    private ShardingTargets(List<String> names, String suffixPrefix, int suffixMinLength) {
        this.names = List.copyOf(names);
        Map<String, Integer> exact = new HashMap<>();
        Map<String, Integer> lowerCase = new HashMap<>();
        for (int i = 0; i < this.names.size(); i++) {
            exact.putIfAbsent(this.names.get(i), i);
            lowerCase.putIfAbsent(this.names.get(i).toLowerCase(Locale.ROOT), i);
        }
        this.indexByName = Map.copyOf(exact);
        this.indexByLowerCaseName = Map.copyOf(lowerCase);
        this.suffixPrefix = suffixPrefix;
        this.suffixMinLength = suffixMinLength;
        int[] every = new int[this.names.size()];
        for (int i = 0; i < every.length; i++) {
            every[i] = i;
        }
        this.all = new TargetSet(this, every);
        this.none = new TargetSet(this, new int[0]);
    }

    /**
     * Targets whose suffix naming is derived from the names themselves (ShardingSphere's
     * {@code createDataSourceDataNode}).
     */
    public static ShardingTargets of(List<String> names) {
        String prefix = names.isEmpty() ? "" : stripTrailingDigits(names.get(0));
        return new ShardingTargets(names, prefix, minSuffixLength(prefix, names));
    }

    /**
     * Targets that are a subset ({@code names}, e.g. the tables of one data source) of all actual
     * tables of a logic table; the suffix naming is derived from all of them the way
     * ShardingSphere's {@code createTableDataNode} does, so that every data source of a table
     * pads suffixes alike.
     *
     * @param names the targets to route to, in routing order
     * @param logicTable the logic table name, or {@code ""} when the names are data sources
     * @param allNames every actual name of the table (at least {@code names})
     */
    public static ShardingTargets of(List<String> names, String logicTable, Collection<String> allNames) {
        if (allNames.isEmpty()) {
            return of(names);
        }
        String first = allNames.iterator().next();
        String prefix = !logicTable.isEmpty() && first.startsWith(logicTable)
                ? logicTable + stripTrailingDigits(first.substring(logicTable.length()))
                : stripTrailingDigits(first);
        return new ShardingTargets(names, prefix, minSuffixLength(prefix, allNames));
    }

    /**
     * Targets with an explicit suffix naming.
     *
     * @param suffixPrefix what precedes the numeric suffix, e.g. {@code t_order_}
     * @param suffixMinLength the width numeric suffixes are left-padded to with {@code '0'}
     */
    public static ShardingTargets of(List<String> names, String suffixPrefix, int suffixMinLength) {
        return new ShardingTargets(names, suffixPrefix, Math.max(0, suffixMinLength));
    }

    private static String stripTrailingDigits(String name) {
        int end = name.length();
        while (end > 0 && Character.isDigit(name.charAt(end - 1))) {
            end--;
        }
        return name.substring(0, end);
    }

    private static int minSuffixLength(String prefix, Collection<String> names) {
        int result = Integer.MAX_VALUE;
        for (String each : names) {
            result = Math.min(result, each.length() - prefix.length());
        }
        return names.isEmpty() ? 1 : Math.max(0, result);
    }

    /** The names, in the order they were given (immutable). */
    public List<String> names() {
        return names;
    }

    public int size() {
        return names.size();
    }

    public String name(int index) {
        return names.get(index);
    }

    /**
     * The index of a name; exact match first, then ignoring case as ShardingSphere's
     * case-insensitive target sets do.
     *
     * @return the index, or {@code -1} if no target has that name
     */
    public int indexOf(String name) {
        Integer result = indexByName.get(name);
        if (result == null) {
            result = indexByLowerCaseName.get(name.toLowerCase(Locale.ROOT));
        }
        return result == null ? -1 : result;
    }

    /**
     * The index of the target named {@code prefix + suffix}, the suffix left-padded with '0' to
     * the shortest suffix length (ShardingSphere's {@code findMatchedTargetName}).
     *
     * @return the index, or {@code -1} if there is no such target
     */
    public int indexOfSuffix(String suffix) {
        StringBuilder name = new StringBuilder(suffixPrefix.length() + Math.max(suffix.length(), suffixMinLength));
        name.append(suffixPrefix);
        for (int i = suffix.length(); i < suffixMinLength; i++) {
            name.append('0');
        }
        name.append(suffix);
        Integer result = indexByName.get(name.toString());
        return result == null ? -1 : result;
    }

    /** What precedes numeric suffixes, e.g. {@code t_order_}. */
    public String suffixPrefix() {
        return suffixPrefix;
    }

    /** The width numeric suffixes are padded to. */
    public int suffixMinLength() {
        return suffixMinLength;
    }

    /** Every target (shared instance). */
    public TargetSet all() {
        return all;
    }

    /** No target (shared instance). */
    public TargetSet none() {
        return none;
    }

    /** One target; {@code index} must be in range. */
    public TargetSet single(int index) {
        Objects.checkIndex(index, names.size());
        return new TargetSet(this, new int[] {index});
    }

    /**
     * The targets with the given names; names that are not targets are ignored (a cold-path helper
     * for algorithms that compute names).
     */
    public TargetSet setOf(Collection<String> targetNames) {
        TargetSet.Builder result = newTargetSet();
        for (String each : targetNames) {
            if (each != null) {
                result.add(indexOf(each));
            }
        }
        return result.build();
    }

    /** Collects targets in index order without duplicates. */
    public TargetSet.Builder newTargetSet() {
        return new TargetSet.Builder(this);
    }

    @Override
    public String toString() {
        return names.toString();
    }
}
