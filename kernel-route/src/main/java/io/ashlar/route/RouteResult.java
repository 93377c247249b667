package io.ashlar.route;

import java.util.List;
import java.util.Optional;

/**
 * Where a statement runs: its units, what kind of execution it needs, and the keys the proxy
 * generated for an INSERT that did not give them.
 *
 * @param kind how to run and merge
 * @param units the units, in a stable order (data source order, then actual table order)
 * @param generatedKeys keys generated for an INSERT whose key column was absent
 */
public record RouteResult(RouteKind kind, List<RouteUnit> units, Optional<GeneratedKeys> generatedKeys) {

    public RouteResult {
        units = List.copyOf(units);
    }

    public RouteResult(RouteKind kind, List<RouteUnit> units) {
        this(kind, units, Optional.empty());
    }

    /** Keys generated for the rows of an INSERT, one per VALUES row, for the named column. */
    public record GeneratedKeys(String column, List<Comparable<?>> values) {
        public GeneratedKeys {
            values = List.copyOf(values);
        }
    }
}
