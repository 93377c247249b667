package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.StatementFailure;

/**
 * The session's backend connections as a sharded COPY asks for them: the first time it has rows for a data source.
 * The session decides how a data source joins (its transaction begun, its settings applied), so that every shard's
 * COPY runs inside the one transaction the session commits or rolls back.
 */
@FunctionalInterface
public interface CopyConnections {

    /**
     * The connection to data source {@code dataSource} (its index in the logical database), inside the session's
     * transaction. Asked at most once per data source and COPY.
     */
    BackendConnection connection(int dataSource) throws StatementFailure;
}
