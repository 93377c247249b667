package io.ashlar.bootstrap;

import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The command line: {@code ashlar start --conf DIR [--port N]} and {@code ashlar demo [--port N]}.
 * Exit codes: 0 after a clean stop, 1 when the configuration or the start failed, 2 for a bad
 * command line.
 */
public final class Ashlar {

    private static final String USAGE = """
            usage: ashlar start --conf DIR [--port N]   run the proxy on the configuration in DIR
                   ashlar demo [--port N]               run embedded PostgreSQL shards and the proxy on them
            """;

    private Ashlar() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.print(USAGE);
            System.exit(2);
        }
        String conf = null;
        int port = -1;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--conf" -> conf = value(args, ++i);
                case "--port" -> port = port(value(args, ++i));
                case "-h", "--help" -> {
                    System.out.print(USAGE);
                    System.exit(0);
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        try {
            switch (args[0]) {
                case "start" -> {
                    if (conf == null) {
                        usage("start needs --conf DIR");
                    }
                    start(Path.of(conf), port);
                }
                case "demo" -> Demo.run(port < 0 ? 5433 : port);
                case "-h", "--help", "help" -> System.out.print(USAGE);
                default -> usage("unknown command " + args[0]);
            }
        } catch (ConfigurationException e) {
            System.err.println("ashlar: configuration error: " + e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            System.err.println("ashlar: could not start: " + e);
            System.exit(1);
        }
    }

    private static void start(Path conf, int port) throws InterruptedException {
        if (!Files.isDirectory(conf)) {
            throw new ConfigurationException(conf + " is not a directory");
        }
        ProxyConfiguration configuration = ProxyConfigurationLoader.load(conf);
        ProxyRuntime runtime = ProxyRuntime.start(configuration, port);
        awaitShutdown(runtime);
    }

    /** Blocks until SIGTERM or Ctrl-C, then stops the resource gracefully. */
    static void awaitShutdown(AutoCloseable resource) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resource.close();
            } catch (Exception e) {
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
