package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendDataSource;
import java.util.List;
import java.util.Map;

/**
 * A logical database as clients see it: its name and the backend data sources it spans, in
 * configuration order. A logical database with one data source and no rules is a pooler: every
 * statement goes to that data source unchanged.
 */
public final class LogicalDatabase implements AutoCloseable {

    private final String name;
    private final List<BackendDataSource> dataSources;

    public LogicalDatabase(String name, List<BackendDataSource> dataSources) {
        if (dataSources.isEmpty()) {
            throw new IllegalArgumentException("logical database " + name + " has no data sources");
        }
        this.name = name;
        this.dataSources = List.copyOf(dataSources);
    }

    public String name() {
        return name;
    }

    public List<BackendDataSource> dataSources() {
        return dataSources;
    }

    /** The data source that statements not routed by any rule go to. */
    public BackendDataSource defaultDataSource() {
        return dataSources.get(0);
    }

    /**
     * The parameters a backend of this database reports at login (server_version, server_encoding,
     * DateStyle, TimeZone, ...), read from a live connection; empty values when none could be made.
     */
    public Map<String, String> backendParameters() {
        return defaultDataSource().backendParameters();
    }

    @Override
    public void close() {
        for (BackendDataSource dataSource : dataSources) {
            dataSource.close();
        }
    }
}
