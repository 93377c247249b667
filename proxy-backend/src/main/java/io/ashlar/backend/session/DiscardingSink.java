package io.ashlar.backend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;

/** A sink for the proxy's own statements on a backend, whose results no client sees. */
class DiscardingSink implements ResultSink {

    static final DiscardingSink INSTANCE = new DiscardingSink();

    @Override
    public void columns(ColumnDescription[] columns) {
    }

    @Override
    public void row(RowValues row) {
    }

    @Override
    public void complete(String commandTag) {
    }

    @Override
    public void empty() {
    }

    @Override
    public void notice(ErrorFields notice) {
    }

    @Override
    public void parameterStatus(String name, String value) {
    }
}
