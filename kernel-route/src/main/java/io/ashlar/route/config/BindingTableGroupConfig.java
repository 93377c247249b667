package io.ashlar.route.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of {@code bindingTables:}: logic tables sharded alike, so a join between them stays inside one data
 * node. YAML spells it {@code t_order, t_order_item} (5.1+) or, from 5.3, with a name:
 * {@code ref_0:t_order,t_order_item}.
 *
 * @param name the group name when the file gives one
 * @param tables the logic tables, in file order, at least one
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/concept/#binding-table">ShardingSphere binding tables</a>
 */
public record BindingTableGroupConfig(Optional<String> name, List<String> tables) {

    public BindingTableGroupConfig {
        Objects.requireNonNull(name, "name");
        tables = ConfigCollections.listCopy(tables, "tables");
        if (tables.isEmpty()) {
            throw new IllegalArgumentException("tables must not be empty");
        }
    }
}
