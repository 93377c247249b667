package io.ashlar.bootstrap.config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code mode:} of server.yaml (ShardingSphere 5.1-5.5: {@code type}, {@code repository: {type, props}},
 * and 5.1-5.2's {@code overwrite}) into a {@link ModeConfig}.
 */
final class ModeReader {

    private static final Logger LOG = LoggerFactory.getLogger(ModeReader.class);

    private static final List<String> ZOOKEEPER_PROPS = List.of("namespace", "server-lists", "retryIntervalMilliseconds",
            "maxRetries", "timeToLiveSeconds", "operationTimeoutMilliseconds", "digest");

    private static final List<String> ZOOKEEPER_INTEGER_PROPS = List.of("retryIntervalMilliseconds", "maxRetries",
            "timeToLiveSeconds", "operationTimeoutMilliseconds");

    private ModeReader() {
    }

    static ModeConfig read(MappingReader mode) {
        mode.expectKeys("type", "repository", "overwrite");
        boolean overwrite = mode.bool("overwrite", false);
        String type = mode.text("type").orElse("Standalone");
        Optional<MappingReader> repository = mode.mapping("repository");
        switch (type.toLowerCase(Locale.ROOT)) {
            case "standalone", "memory" -> {
                Optional<RepositoryConfig> result = repository.map(ModeReader::readRepository);
                if (result.isPresent() || "memory".equalsIgnoreCase(type)) {
                    LOG.info("{}: mode {}{}: Ashlar's standalone mode keeps the rules in conf/ only", mode.fileName(), type,
                            result.map(each -> " with repository " + each.type()).orElse(""));
                }
                return new ModeConfig(ModeConfig.Type.STANDALONE, result, overwrite);
            }
            case "cluster" -> {
                if (repository.isEmpty()) {
                    throw mode.error("mode Cluster needs 'repository: {type: ZooKeeper, props: {namespace, server-lists}}'");
                }
                return new ModeConfig(ModeConfig.Type.CLUSTER, Optional.of(readClusterRepository(repository.get())), overwrite);
            }
            default -> throw mode.error(mode.value("type").orElseThrow(),
                    "unknown mode type '" + type + "' (expected Standalone or Cluster)");
        }
    }

    private static RepositoryConfig readRepository(MappingReader repository) {
        repository.expectKeys("type", "props");
        return new RepositoryConfig(repository.requiredText("type"), repository.props("props"));
    }

    private static RepositoryConfig readClusterRepository(MappingReader repository) {
        RepositoryConfig result = readRepository(repository);
        if (!"ZooKeeper".equalsIgnoreCase(result.type())) {
            throw repository.error(repository.value("type").orElseThrow(), "cluster repository type '" + result.type()
                    + "' is not supported by Ashlar (expected ZooKeeper)");
        }
        MappingReader props = repository.mapping("props").orElseThrow(() -> repository.error("missing 'props' with 'server-lists'"));
        props.expectKeys(ZOOKEEPER_PROPS);
        props.requiredText("server-lists");
        for (String each : ZOOKEEPER_INTEGER_PROPS) {
            props.longValue(each, 0, 0, "a non-negative integer");
        }
        return new RepositoryConfig("ZooKeeper", result.props());
    }
}
