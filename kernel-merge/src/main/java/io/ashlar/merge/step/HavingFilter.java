package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.value.ColumnCollations;

import java.util.List;

/**
 * Keeps the merged groups that satisfy the HAVING condition. It runs in the proxy, after the
 * groups are merged, because a shard sees only part of each group: {@code HAVING count(*) > 5}
 * may fail on every shard and hold for the whole
 * (<a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-HAVING">HAVING Clause</a>).
 */
public final class HavingFilter implements MergeStep {

    private final MergeStep input;
    private final HavingPredicate predicate;
    private final ColumnCollations collations;

    public HavingFilter(MergeStep input, HavingPredicate predicate, ColumnCollations collations) {
        this.input = input;
        this.predicate = predicate;
        this.collations = collations;
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor source = input.open(shards, context);
        try {
            return new Cursor(source, HavingEvaluator.bind(predicate, source, collations));
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
    }

    @Override
    public String label() {
        return "HavingFilter " + predicate.describe();
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final HavingEvaluator evaluator;

        Cursor(RowCursor input, HavingEvaluator evaluator) {
            this.input = input;
            this.evaluator = evaluator;
        }

        @Override
        public int columnCount() {
            return input.columnCount();
        }

        @Override
        public int typeOid(int column) {
            return input.typeOid(column);
        }

        @Override
        public boolean next() {
            while (input.next()) {
                if (evaluator.accepts(input.row())) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public byte[] value(int column) {
            return input.value(column);
        }

        @Override
        public byte[][] row() {
            return input.row();
        }

        @Override
        public void close() {
            input.close();
        }
    }
}
