package io.ashlar.bootstrap.config;

/**
 * What server.yaml's {@code props:} say about watching the proxy (Ashlar's own keys, docs/operations.md).
 *
 * @param metricsPort {@code metrics-port}: the HTTP port of the Prometheus endpoint {@code /metrics}, on the proxy's
 *                    bind address; 0 (the default) for none, and then nothing is counted
 * @param slowQueryThresholdMillis {@code slow-query-threshold-milliseconds}: requests that take longer are logged
 *                                 with their route and times; 0 (the default) for none
 */
public record ObservabilityConfig(int metricsPort, long slowQueryThresholdMillis) {

    public static final ObservabilityConfig OFF = new ObservabilityConfig(0, 0);

    public ObservabilityConfig {
        if (metricsPort < 0 || metricsPort > 65_535) {
            throw new IllegalArgumentException("metrics-port " + metricsPort + " is not in 0..65535");
        }
        if (slowQueryThresholdMillis < 0) {
            throw new IllegalArgumentException("slow-query-threshold-milliseconds must not be negative");
        }
    }
}
