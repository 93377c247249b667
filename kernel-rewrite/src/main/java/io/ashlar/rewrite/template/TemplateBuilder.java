package io.ashlar.rewrite.template;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.ParameterMarker;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Builds the {@link Piece}s of a {@link SqlTemplate} by splicing: text between edits is copied
 * from the user's SQL, and every table name, index name (and, when asked, parameter marker) inside
 * copied text becomes a unit-dependent piece, wherever the copy comes from (a derived column
 * copies an ORDER BY expression, and its {@code t_order.} qualifier must follow the unit too).
 * Compile-time code: runs once per statement and route shape.
 */
public final class TemplateBuilder {

    private final String sql;
    private final int[] pointStarts;
    private final int[] pointEnds;
    private final Piece[] pointPieces;
    private final List<Piece> pieces = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();

    private TemplateBuilder(String sql, int[] pointStarts, int[] pointEnds, Piece[] pointPieces) {
        this.sql = sql;
        this.pointStarts = pointStarts;
        this.pointEnds = pointEnds;
        this.pointPieces = pointPieces;
    }

    /**
     * A builder over {@code statement}'s text whose copies turn table and index names into
     * {@link Piece.Table} / {@link Piece.Index} and, when {@code markers}, parameter markers into
     * {@link Piece.Marker}.
     */
    public static TemplateBuilder of(AnalyzedStatement statement, boolean markers) {
        List<Object[]> points = new ArrayList<>();
        String sql = statement.sql();
        for (TableReference table : statement.tables()) {
            points.add(new Object[] {table.nameRange().start(), table.nameRange().end(),
                    new Piece.Table(table.name().name(), table.quoted(), table.nameRange().text(sql),
                            table.role() == TableRole.WHOLE_ROW_COLUMN)});
        }
        for (IndexReference index : statement.indexes()) {
            String logicTable = index.table().isPresent()
                    ? statement.tables().get(index.table().getAsInt()).name().name() : "";
            String original = index.nameRange().text(sql);
            points.add(new Object[] {index.nameRange().start(), index.nameRange().end(),
                    new Piece.Index(index.name().name(), logicTable, original.startsWith("\""), original)});
        }
        if (markers) {
            for (ParameterMarker marker : statement.parameters()) {
                points.add(new Object[] {marker.range().start(), marker.range().end(),
                        new Piece.Marker(marker.number(), marker.jdbc())});
            }
        }
        points.sort(Comparator.comparingInt(point -> (Integer) point[0]));
        int size = points.size();
        int[] starts = new int[size];
        int[] ends = new int[size];
        Piece[] pieces = new Piece[size];
        for (int i = 0; i < size; i++) {
            starts[i] = (Integer) points.get(i)[0];
            ends[i] = (Integer) points.get(i)[1];
            pieces[i] = (Piece) points.get(i)[2];
        }
        return new TemplateBuilder(sql, starts, ends, pieces);
    }

    /** A fresh builder over the same text and points, for nested pieces (an INSERT row). */
    public TemplateBuilder fork() {
        return new TemplateBuilder(sql, pointStarts, pointEnds, pointPieces);
    }

    /** The SQL text the builder copies from. */
    public String sql() {
        return sql;
    }

    /** Copies {@code sql[from, to)}, turning the points inside it into their pieces. */
    public TemplateBuilder copy(int from, int to) {
        int i = Arrays.binarySearch(pointStarts, from);
        if (i < 0) {
            i = -i - 1;
        }
        int position = from;
        for (; i < pointStarts.length && pointStarts[i] < to; i++) {
            if (pointEnds[i] > to) {
                break;
            }
            text.append(sql, position, pointStarts[i]);
            piece(pointPieces[i]);
            position = pointEnds[i];
        }
        text.append(sql, position, to);
        return this;
    }

    public TemplateBuilder text(String value) {
        text.append(value);
        return this;
    }

    public TemplateBuilder piece(Piece piece) {
        if (piece instanceof Piece.Text fixed) {
            text.append(fixed.text());
            return this;
        }
        flush();
        pieces.add(piece);
        return this;
    }

    /** The pieces built so far, adjacent text joined. */
    public Piece[] pieces() {
        flush();
        return pieces.toArray(new Piece[0]);
    }

    /**
     * Copies the whole text with {@code edits} applied.
     *
     * @throws IllegalStateException when two edits overlap (a rewriter bug)
     */
    public Piece[] splice(List<Edit> edits) {
        List<Edit> sorted = new ArrayList<>(edits);
        sorted.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::end));
        int position = 0;
        for (Edit edit : sorted) {
            if (edit.start() < position) {
                throw new IllegalStateException("overlapping rewrite edits at " + edit.start() + " in: " + sql);
            }
            copy(position, edit.start());
            edit.replacement().accept(this);
            position = edit.end();
        }
        copy(position, sql.length());
        return pieces();
    }

    private void flush() {
        if (!text.isEmpty()) {
            pieces.add(new Piece.Text(text.toString()));
            text.setLength(0);
        }
    }
}
