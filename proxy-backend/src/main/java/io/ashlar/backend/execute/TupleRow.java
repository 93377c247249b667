package io.ashlar.backend.execute;

import org.postgresql.core.Tuple;

/** A reusable view of a pgjdbc tuple as {@link RowValues}: one per result, pointed at each row in turn. */
final class TupleRow implements RowValues {

    private Tuple tuple;

    TupleRow point(Tuple tuple) {
        this.tuple = tuple;
        return this;
    }

    @Override
    public int columnCount() {
        return tuple.fieldCount();
    }

    @Override
    public byte[] value(int column) {
        return tuple.get(column);
    }
}
