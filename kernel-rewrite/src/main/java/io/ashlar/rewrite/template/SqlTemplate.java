package io.ashlar.rewrite.template;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ParameterMarker;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteResult.GeneratedKeys;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A statement's rewritten text with the unit-dependent spots left open (table and index names,
 * INSERT rows, generated keys, parameter numbering), compiled once per statement and route kind.
 * {@link #rewrite} fills them in for one unit; the result for a unit shape is cached
 * ({@link UnitCache}), so a repeated execution costs a hash and a few reads.
 */
public final class SqlTemplate {

    private static final int[] NO_PARAMETERS = new int[0];
    private static final int MARKER = 1;
    private static final int JDBC_MARKER = 2;

    private final String original;
    private final Piece[] pieces;
    private final boolean renameOnly;
    private final boolean unitDependent;
    private final boolean hasRows;
    private final int rowCount;
    private final boolean jdbc;
    private final boolean renumber;
    private final int[] identity;
    private final UnitCache cache;
    private final String fixedSql;
    private final int[] fixedMap;

    /**
     * @param statement  the statement; its SQL is the user's text
     * @param pieces     the compiled pieces
     * @param renameOnly whether the pieces reproduce the user's text for a unit that renames nothing,
     *                   keeps every row and gets no generated key, so that it can be returned as is
     * @param rowCount   the INSERT's VALUES rows (0 for anything else)
     */
    public SqlTemplate(AnalyzedStatement statement, Piece[] pieces, boolean renameOnly, int rowCount) {
        this.original = statement.sql();
        this.pieces = pieces;
        this.renameOnly = renameOnly;
        this.rowCount = rowCount;
        int parameterCount = statement.parameterCount();
        this.identity = identity(parameterCount);
        boolean dependent = false;
        boolean rows = false;
        int markerBits = 0;
        boolean[] seen = new boolean[parameterCount + 1];
        for (Piece piece : pieces) {
            dependent |= isUnitDependent(piece);
            rows |= piece instanceof Piece.Rows;
            markerBits |= markers(piece, seen);
        }
        boolean anyJdbc = (markerBits & JDBC_MARKER) != 0;
        boolean allSeen = true;
        for (ParameterMarker marker : statement.parameters()) {
            allSeen &= marker.number() >= seen.length || seen[marker.number()];
        }
        this.unitDependent = dependent;
        this.hasRows = rows;
        this.jdbc = anyJdbc;
        // Renumbered where some parameters are left out (a HAVING or OFFSET the proxy applies): by the markers the
        // pieces hold, or to none where the text holds none (a unit that declared a parameter it does not use fails
        // PostgreSQL's Parse with 42P18).
        this.renumber = !anyJdbc && !allSeen
                && ((markerBits & MARKER) != 0 || parameterCount > 0 && !rows && !mayHoldMarkers(pieces));
        this.cache = new UnitCache(rows);
        if (!dependent) {
            Assembled fixed = assemble(null, Optional.empty());
            this.fixedSql = renameOnly ? original : fixed.sql;
            this.fixedMap = fixed.parameterMap;
        } else {
            this.fixedSql = null;
            this.fixedMap = null;
        }
    }

    /** The identity parameter map of {@code count} parameters. */
    public static int[] identity(int count) {
        if (count == 0) {
            return NO_PARAMETERS;
        }
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            result[i] = i;
        }
        return result;
    }

    /** The pieces, for tests and EXPLAIN. */
    public List<Piece> pieces() {
        return List.of(pieces);
    }

    /** The SQL and parameter map for {@code unit}; {@code keys} are the route's generated keys, if any. */
    public RewrittenUnit rewrite(RouteUnit unit, Optional<GeneratedKeys> keys) {
        if (keys.isEmpty()) {
            if (!unitDependent) {
                return new RewrittenUnit(unit, fixedSql, fixedMap);
            }
            if (renameOnly && !renames(unit) && keepsAllRows(unit)) {
                return new RewrittenUnit(unit, original, identity);
            }
            int hash = cache.hash(unit);
            UnitCache.Entry entry = cache.find(unit, hash);
            if (entry != null) {
                return new RewrittenUnit(unit, entry.sql(), entry.parameterMap());
            }
            Assembled assembled = assemble(unit, keys);
            cache.put(unit, hash, assembled.sql, assembled.parameterMap);
            return new RewrittenUnit(unit, assembled.sql, assembled.parameterMap);
        }
        Assembled assembled = assemble(unit, keys);
        return new RewrittenUnit(unit, assembled.sql, assembled.parameterMap);
    }

    private static boolean renames(RouteUnit unit) {
        List<TableMapping> tables = unit.tables();
        for (int i = 0, n = tables.size(); i < n; i++) {
            TableMapping mapping = tables.get(i);
            if (!mapping.logicTable().equals(mapping.actualTable())) {
                return true;
            }
        }
        return false;
    }

    private boolean keepsAllRows(RouteUnit unit) {
        return !hasRows || !unit.hasRowSubset() || unit.insertRows().length == rowCount;
    }

    private record Assembled(String sql, int[] parameterMap) {
    }

    private Assembled assemble(RouteUnit unit, Optional<GeneratedKeys> keys) {
        StringBuilder out = new StringBuilder(original.length() + 32);
        Numbering numbering = new Numbering(identity.length, jdbc, renumber || (unit != null && !keepsAllRows(unit)));
        emit(pieces, unit, keys, out, numbering);
        return new Assembled(out.toString(), numbering.map(identity));
    }

    private void emit(Piece[] list, RouteUnit unit, Optional<GeneratedKeys> keys, StringBuilder out, Numbering numbering) {
        for (Piece piece : list) {
            switch (piece) {
                case Piece.Text text -> out.append(text.text());
                case Piece.Table table -> {
                    String actual = unit.actualTable(table.logicTable());
                    if (actual.equals(table.logicTable())) {
                        out.append(table.original());
                    } else {
                        out.append(Identifiers.write(actual, table.quoted()));
                        if (table.keepsName()) {
                            out.append(" AS ").append(table.original());
                        }
                    }
                }
                case Piece.Index index -> out.append(indexName(index, unit));
                case Piece.Marker marker -> numbering.emit(marker, out);
                case Piece.Rows rows -> {
                    boolean first = true;
                    if (keepsAllRows(unit)) {
                        for (int i = 0; i < rows.rows().length; i++) {
                            if (!first) {
                                out.append(rows.separators()[i]);
                            }
                            emit(rows.rows()[i], unit, keys, out, numbering);
                            first = false;
                        }
                    } else {
                        for (int row : unit.insertRows()) {
                            if (!first) {
                                out.append(rows.separators()[row]);
                            }
                            emit(rows.rows()[row], unit, keys, out, numbering);
                            first = false;
                        }
                    }
                }
                case Piece.KeyColumn ignored -> keys.ifPresent(generated ->
                        out.append(", ").append(Identifiers.write(generated.column(), false)));
                case Piece.KeyValue value -> keys.ifPresent(generated ->
                        out.append(", ").append(KeyLiterals.literal(generated.values().get(value.row()))));
            }
        }
    }

    private static String indexName(Piece.Index index, RouteUnit unit) {
        String actual = null;
        List<TableMapping> tables = unit.tables();
        for (int i = 0, n = tables.size(); i < n; i++) {
            TableMapping mapping = tables.get(i);
            if (index.logicTable().isEmpty() || mapping.logicTable().equals(index.logicTable())) {
                actual = mapping.logicTable().equals(mapping.actualTable()) ? null : mapping.actualTable();
                break;
            }
        }
        return actual == null ? index.original() : Identifiers.write(index.name() + "_" + actual, index.quoted());
    }

    private static boolean isUnitDependent(Piece piece) {
        return switch (piece) {
            case Piece.Table ignored -> true;
            case Piece.Index ignored -> true;
            case Piece.Rows ignored -> true;
            default -> false;
        };
    }

    /** Whether the text pieces could hold a parameter marker ({@code $n} or {@code ?}) not compiled into a piece. */
    private static boolean mayHoldMarkers(Piece[] pieces) {
        for (Piece piece : pieces) {
            if (piece instanceof Piece.Text text) {
                String t = text.text();
                for (int i = 0, n = t.length(); i < n; i++) {
                    char c = t.charAt(i);
                    if (c == '?' || c == '$' && i + 1 < n && Character.isDigit(t.charAt(i + 1))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Marks the parameter numbers {@code piece} writes; returns {@link #MARKER} and {@link #JDBC_MARKER} bits. */
    private static int markers(Piece piece, boolean[] seen) {
        int result = 0;
        if (piece instanceof Piece.Marker marker) {
            if (marker.number() < seen.length) {
                seen[marker.number()] = true;
            }
            result = MARKER | (marker.jdbc() ? JDBC_MARKER : 0);
        } else if (piece instanceof Piece.Rows rows) {
            for (Piece[] row : rows.rows()) {
                for (Piece each : row) {
                    result |= markers(each, seen);
                }
            }
        }
        return result;
    }

    /** Writes markers and records which client parameter each unit position takes. */
    private static final class Numbering {

        private final boolean jdbc;
        private final boolean renumber;
        private final int[] newNumbers;
        private int[] map;
        private int size;

        Numbering(int parameterCount, boolean jdbc, boolean renumber) {
            this.jdbc = jdbc;
            this.renumber = renumber;
            this.newNumbers = renumber && !jdbc ? new int[parameterCount + 1] : null;
            this.map = jdbc || renumber ? new int[Math.max(4, parameterCount)] : null;
        }

        void emit(Piece.Marker marker, StringBuilder out) {
            int number = marker.number();
            if (marker.jdbc()) {
                out.append('?');
                record(number - 1);
            } else if (newNumbers != null && number < newNumbers.length) {
                if (newNumbers[number] == 0) {
                    record(number - 1);
                    newNumbers[number] = size;
                }
                out.append('$').append(newNumbers[number]);
            } else {
                out.append('$').append(number);
            }
        }

        private void record(int index) {
            if (size == map.length) {
                map = Arrays.copyOf(map, size * 2);
            }
            map[size++] = index;
        }

        int[] map(int[] identity) {
            if (map == null) {
                return identity;
            }
            if (size == identity.length) {
                boolean same = true;
                for (int i = 0; i < size && same; i++) {
                    same = map[i] == i;
                }
                if (same) {
                    return identity;
                }
            }
            return Arrays.copyOf(map, size);
        }
    }
}
