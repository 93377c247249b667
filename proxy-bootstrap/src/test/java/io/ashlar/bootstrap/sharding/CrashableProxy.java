package io.ashlar.bootstrap.sharding;

import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import java.nio.file.Path;

/**
 * A proxy in a process of its own, for tests that kill it with SIGKILL: {@code CrashableProxy CONF_DIR [halt]}
 * starts the proxy on CONF_DIR's configuration, prints {@code PORT n}, and runs until killed. With {@code halt},
 * commits in two phases stop after their durable decision, so that the kill lands between the decision and COMMIT
 * PREPARED.
 */
public final class CrashableProxy {

    private CrashableProxy() {
    }

    public static void main(String[] args) throws Exception {
        ProxyRuntime proxy = ProxyRuntime.start(ProxyConfigurationLoader.load(Path.of(args[0])), 0);
        if (args.length > 1 && args[1].equals("halt")) {
            proxy.twoPhaseCommit().haltAfterDecision();
        }
        System.out.println("PORT " + proxy.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
