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
 * @param rowsStay units that must change no row, or null: see {@link RowsStay}
 */
public record RouteResult(RouteKind kind, List<RouteUnit> units, Optional<GeneratedKeys> generatedKeys, RowsStay rowsStay) {

    public RouteResult {
        units = List.copyOf(units);
    }

    public RouteResult(RouteKind kind, List<RouteUnit> units, Optional<GeneratedKeys> generatedKeys) {
        this(kind, units, generatedKeys, null);
    }

    public RouteResult(RouteKind kind, List<RouteUnit> units) {
        this(kind, units, Optional.empty(), null);
    }

    /** Keys generated for the rows of an INSERT, one per VALUES row, for the named column. */
    public record GeneratedKeys(String column, List<Comparable<?>> values) {
        public GeneratedKeys {
            values = List.copyOf(values);
        }
    }

    /**
     * An UPDATE that sets sharding columns to values the rules place on some nodes only
     * ({@code UPDATE t_order SET user_id = 7, status = 'paid' WHERE order_id = 42}, what ORMs send to save a whole
     * row): it runs on every node its WHERE reaches, and a row it changes on one of {@code units} would now belong on
     * another node, which one UPDATE cannot move it to. Such a unit must report that it changed no row; if one changed
     * any, the statement fails with {@code message} (SQLSTATE 0A000) and its transaction undoes it.
     *
     * @param units indexes into {@link #units()}, ascending
     */
    public record RowsStay(int[] units, String message) {
    }
}
