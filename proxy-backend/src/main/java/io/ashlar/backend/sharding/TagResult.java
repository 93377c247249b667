package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import java.util.List;

/** A result with no rows, only a command tag: a write that ran on several shards, or a statement the session answered itself (BEGIN, COMMIT, SAVEPOINT). */
public final class TagResult implements QueryResult {

    /** The result of an empty statement (EmptyQueryResponse). */
    public static final TagResult EMPTY = new TagResult("", List.of(), true);

    private final String tag;
    private final List<ErrorFields> notices;
    private final boolean empty;

    public TagResult(String tag, List<ErrorFields> notices) {
        this(tag, notices, false);
    }

    private TagResult(String tag, List<ErrorFields> notices, boolean empty) {
        this.tag = tag;
        this.notices = notices;
        this.empty = empty;
    }

    @Override
    public boolean hasRows() {
        return false;
    }

    @Override
    public ColumnDescription[] columns() {
        return new ColumnDescription[0];
    }

    @Override
    public boolean next() {
        return false;
    }

    @Override
    public RowValues row() {
        throw new IllegalStateException("no rows");
    }

    @Override
    public String tag() {
        return tag;
    }

    @Override
    public boolean isEmptyQuery() {
        return empty;
    }

    @Override
    public List<ErrorFields> notices() {
        return notices;
    }
}
