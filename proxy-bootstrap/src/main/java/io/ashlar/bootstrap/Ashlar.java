package io.ashlar.bootstrap;

import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.registry.ClusterProxy;
import io.ashlar.bootstrap.registry.RegistryPush;
import io.ashlar.bootstrap.registry.RegistryShow;
import io.ashlar.bootstrap.registry.ZooKeeperRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The command line: {@code ashlar start --conf DIR [--port N] [--overwrite]}, {@code ashlar demo [--port N]},
 * {@code ashlar registry push --conf DIR [--overwrite]} and {@code ashlar registry show [--conf DIR]}. A server.yaml
 * in Cluster mode starts the proxy on the ZooKeeper registry (docs/cluster.md).
 * Exit codes: 0 after a clean stop, 1 when the configuration or the start failed, 2 for a bad
 * command line.
 */
public final class Ashlar {

    private static final String USAGE = """
            usage: ashlar start --conf DIR [--port N] [--overwrite]
                                                        run the proxy on the configuration in DIR (in Cluster mode,
                                                        --overwrite makes DIR's config-*.yaml replace the registry's)
                   ashlar demo [--port N]               run embedded PostgreSQL shards and the proxy on them
                   ashlar registry push --conf DIR [--overwrite]
                                                        write DIR's logical databases to the registry of DIR/server.yaml
                                                        (--overwrite also removes those DIR does not hold)
                   ashlar registry show [--conf DIR]    print what the registry holds and the live proxies
            """;

    private Ashlar() {
    }

    public static void main(String[] args) {
        // Netty samples one buffer in 128 for leak tracking by default, recording a stack trace
        // each time: a cost on every statement's path in production. Tests keep it on.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        if (args.length == 0) {
            System.err.print(USAGE);
            System.exit(2);
        }
        String conf = null;
        int port = -1;
        boolean overwrite = false;
        String registryCommand = "";
        int first = 1;
        if ("registry".equals(args[0])) {
            if (args.length < 2) {
                usage("registry needs push or show");
            }
            registryCommand = args[1];
            first = 2;
        }
        for (int i = first; i < args.length; i++) {
            switch (args[i]) {
                case "--conf" -> conf = value(args, ++i);
                case "--port" -> port = port(value(args, ++i));
                case "--overwrite" -> overwrite = true;
                case "-h", "--help" -> {
                    System.out.print(USAGE);
                    System.exit(0);
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        String loggingProblem = conf == null ? null : LoggingSetup.apply(Path.of(conf));
        if (loggingProblem != null) {
            System.err.println("ashlar: " + loggingProblem);
        }
        try {
            switch (args[0]) {
                case "start" -> {
                    if (conf == null) {
                        usage("start needs --conf DIR");
                    }
                    start(Path.of(conf), port, overwrite);
                }
                case "registry" -> {
                    registry(registryCommand, Path.of(conf == null ? "conf" : conf), overwrite);
                    System.exit(0);
                }
                case "demo" -> Demo.run(port < 0 ? 5433 : port);
                case "-h", "--help", "help" -> System.out.print(USAGE);
                default -> usage("unknown command " + args[0]);
            }
        } catch (ConfigurationException e) {
            System.err.println("ashlar: configuration error: " + e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            System.err.println("registry".equals(args[0]) ? "ashlar: registry " + registryCommand + " failed: " + e : "ashlar: could not start: " + e);
            System.exit(1);
        }
    }

    private static void start(Path conf, int port, boolean overwrite) throws InterruptedException {
        if (!Files.isDirectory(conf)) {
            throw new ConfigurationException(conf + " is not a directory");
        }
        ProxyConfiguration configuration = ProxyConfigurationLoader.load(conf);
        if (configuration.server().mode().type() == ModeConfig.Type.CLUSTER) {
            awaitShutdown(ClusterProxy.start(configuration, port, overwrite));
        } else {
            awaitShutdown(ProxyRuntime.start(configuration, port));
        }
    }

    private static void registry(String command, Path conf, boolean overwrite) throws Exception {
        ProxyConfiguration configuration = ProxyConfigurationLoader.load(conf);
        ModeConfig mode = configuration.server().mode();
        if (mode.type() != ModeConfig.Type.CLUSTER) {
            throw new ConfigurationException(conf.resolve("server.yaml") + ": mode is not Cluster, so there is no registry to "
                    + command + " (set mode: {type: Cluster, repository: {type: ZooKeeper, props: {namespace, server-lists}}})");
        }
        if ("push".equals(command)) {
            RegistryPush.validate(configuration);
        } else if (!"show".equals(command)) {
            usage("unknown registry command " + command + " (expected push or show)");
        }
        try (ZooKeeperRegistry registry = ZooKeeperRegistry.open(mode.repository().orElseThrow())) {
            if (!registry.awaitConnected()) {
                throw new ConfigurationException("ZooKeeper at " + registry.describe() + " does not answer");
            }
            if ("push".equals(command)) {
                List<String> changes = RegistryPush.push(configuration, registry, overwrite);
                System.out.println(changes.isEmpty() ? "registry " + registry.describe() + ": already up to date"
                        : "registry " + registry.describe() + ": " + String.join(", ", changes));
            } else {
                System.out.print(RegistryShow.show(registry));
            }
        }
    }

    /** Blocks until SIGTERM or Ctrl-C, then stops the resource gracefully. */
    static void awaitShutdown(AutoCloseable resource) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resource.close();
            } catch (Exception | Error e) {
                // An Error too (out of memory while sessions are told and connections given back): said, not silent.
                System.err.println("ashlar: error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, "ashlar-shutdown"));
        stopped.await();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            usage(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static int port(String text) {
        try {
            int result = Integer.parseInt(text);
            if (result < 0 || result > 65_535) {
                usage("--port must be between 0 and 65535, got " + text);
            }
            return result;
        } catch (NumberFormatException e) {
            usage("--port must be a number, got " + text);
            return -1;
        }
    }

    private static void usage(String problem) {
        System.err.println("ashlar: " + problem);
        System.err.print(USAGE);
        System.exit(2);
    }
}
