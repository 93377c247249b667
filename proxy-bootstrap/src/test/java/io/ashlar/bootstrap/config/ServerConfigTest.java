package io.ashlar.bootstrap.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.ProxyUser;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** server.yaml: users in every ShardingSphere spelling, props, mode, and the errors of each. */
class ServerConfigTest {

    private static ServerConfig load(String yaml) {
        return ProxyConfigurationLoader.loadServer("server.yaml", yaml);
    }

    private static String errorOf(String yaml) {
        return assertThrows(ConfigurationException.class, () -> load(yaml)).getMessage();
    }

    private static void assertErrorContains(String expected, String yaml) {
        String message = errorOf(yaml);
        assertTrue(message.startsWith("server.yaml: ") && message.contains(expected), () -> "expected <" + expected + "> in <" + message + ">");
    }

    @Test
    void emptyOrUserlessServerYamlGivesRootRoot() {
        ProxyUser root = new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT, false, true);
        assertEquals(ServerConfig.DEFAULTS, load(""));
        assertEquals(ServerConfig.DEFAULTS, load("# nothing but a comment\n"));
        assertEquals(List.of(root), load("props:\n  sql-show: true\n").users());
        assertEquals(List.of(root), load("authority:\n  users: []\n").users());
        assertEquals(List.of(root), load("rules:\n- !AUTHORITY\n  provider:\n    type: ALL_PRIVILEGES_PERMITTED\n").users());
    }

    @Test
    void readsShardingSphere51UserStrings() {
        ServerConfig server = load("""
                rules:
                  - !AUTHORITY
                    users:
                      - root@%:root
                      - sharding@:sharding
                      - app@10.1.2.3:pa:ss@word
                      - nohost:secret
                    provider:
                      type: ALL_PRIVILEGES_PERMITTED
                  - !TRANSACTION
                    defaultType: XA
                    providerType: Atomikos
                  - !SQL_PARSER
                    sqlCommentParseEnabled: true
                """);
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT),
                new ProxyUser("sharding", "%", "sharding", ProxyUser.PROTOCOL_DEFAULT),
                new ProxyUser("app", "10.1.2.3", "pa:ss@word", ProxyUser.PROTOCOL_DEFAULT),
                new ProxyUser("nohost", "%", "secret", ProxyUser.PROTOCOL_DEFAULT)), server.users());
    }

    @Test
    void readsShardingSphere53AuthorityRuleWithUserMappings() {
        ServerConfig server = load("""
                rules:
                  - !AUTHORITY
                    users:
                      - user: root@%
                        password: root
                      - user: old@127.0.0.1
                        password: "123"
                        authenticationMethod: MD5
                    privilege:
                      type: ALL_PERMITTED
                """);
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT),
                new ProxyUser("old", "127.0.0.1", "123", ProxyUser.MD5)), server.users());
    }

    @Test
    void authenticatorsDecideTheMethodUnlessTheUserSaysOtherwise() {
        ServerConfig server = load("""
                authority:
                  users:
                    - user: a
                      password: a
                    - user: b
                      password: b
                      authenticationMethodName: scram
                    - user: c
                      password: c
                      authenticationMethodName: scram
                      authenticationMethod: password
                  authenticators:
                    md5:
                      type: MD5
                    scram:
                      type: SCRAM_SHA256
                  defaultAuthenticator: md5
                """);
        assertEquals(List.of(ProxyUser.MD5, ProxyUser.SCRAM_SHA_256, ProxyUser.PASSWORD),
                server.users().stream().map(ProxyUser::authenticationMethod).toList());
    }

    @Test
    void noAuthenticatorNamedMeansTheProtocolDefaultAndScramIsOneLineAway() {
        String users = """
                authority:
                  users:
                    - user: root@%
                      password: root
                    - user: old
                      password: old
                      authenticationMethodName: md5
                  authenticators:
                    md5:
                      type: md5
                    scram_sha256:
                      type: SCRAM_SHA256
                """;
        assertEquals(List.of(ProxyUser.PROTOCOL_DEFAULT, ProxyUser.MD5),
                load(users).users().stream().map(ProxyUser::authenticationMethod).toList());
        assertEquals(List.of(ProxyUser.SCRAM_SHA_256, ProxyUser.MD5),
                load(users + "  defaultAuthenticator: scram_sha256\n").users().stream().map(ProxyUser::authenticationMethod).toList());
        ServerConfig rule53 = load("""
                rules:
                  - !AUTHORITY
                    users:
                      - user: root@%
                        password: root
                    authenticators:
                      scram:
                        type: SCRAM_SHA256
                    defaultAuthenticator: scram
                """);
        assertEquals(List.of(new ProxyUser("root", "%", "root", ProxyUser.SCRAM_SHA_256)), rule53.users());
    }

    @Test
    void userErrors() {
        assertErrorContains("authority.users[0]: expected <user>@<host>:<password>, got 'root'", "authority:\n  users:\n    - root\n");
        assertErrorContains("authority.users[1]: user ROOT@% is defined twice",
                "authority:\n  users:\n    - root@%:a\n    - user: ROOT\n      password: b\n");
        assertErrorContains("authority.users[0].authenticationMethodName: authenticator 'md5' is not defined in 'authenticators'",
                "authority:\n  users:\n    - user: a\n      authenticationMethodName: md5\n");
        assertErrorContains("authority.users[0].authenticationMethod: unknown authenticationMethod 'sha1' (expected one of: scram-sha-256, md5, password)",
                "authority:\n  users:\n    - user: a\n      authenticationMethod: sha1\n");
        assertErrorContains("authority.authenticators.native.type: authenticator type 'MYSQL_NATIVE_PASSWORD' is not supported by Ashlar",
                "authority:\n  authenticators:\n    native:\n      type: MYSQL_NATIVE_PASSWORD\n");
        assertErrorContains("authority.authenticators.scram.type: authenticator type 'SCRAM_SHA512' is not supported by Ashlar "
                + "(expected MD5, SCRAM_SHA256 or PASSWORD)",
                "authority:\n  users: [root@%:root]\n  authenticators:\n    scram:\n      type: SCRAM_SHA512\n");
        assertErrorContains("authority.authenticators.scram: missing 'type'",
                "authority:\n  users: [root@%:root]\n  authenticators:\n    scram:\n      props: {}\n");
        assertErrorContains("authority.defaultAuthenticator: defaultAuthenticator 'scram' is not defined in 'authenticators'",
                "authority:\n  users: [root@%:root]\n  defaultAuthenticator: scram\n");
        assertErrorContains("authority.privilege.type: privilege type 'NATIVE' is not supported by Ashlar",
                "authority:\n  users: [root@%:root]\n  privilege:\n    type: NATIVE\n");
        assertErrorContains("users are configured twice: in 'authority' and in a '!AUTHORITY' rule",
                "rules:\n- !AUTHORITY\n  users: [a@%:a]\nauthority:\n  users: [b@%:b]\n");
        assertErrorContains("authority: unknown key 'user' (expected one of: users, provider, privilege, authenticators, defaultAuthenticator)",
                "authority:\n  user: [root@%:root]\n");
    }

    @Test
    void readsTypedPropsFromNumbersAndStrings() {
        ServerProps props = load("""
                props:
                  proxy-default-port: "6000"
                  proxy-bind-address: 127.0.0.1
                  proxy-frontend-max-connections: 200
                  sql-show: yes
                  sql-simple: "true"
                  proxy-backend-query-fetch-size: 1_000
                  max-connections-size-per-query: 4
                  proxy-frontend-database-protocol-type: POSTGRESQL
                  proxy-frontend-flush-threshold: 64
                  proxy-frontend-executor-size: 2
                  proxy-netty-backlog: 512
                  proxy-frontend-ssl-enabled: false
                  proxy-opentracing-enabled: false
                  lock-wait-timeout-milliseconds: 50000
                """).props();
        assertEquals(new ServerProps(6000, "127.0.0.1", 200, true, true, 1000, 4, Optional.of("PostgreSQL"), 64, 2, 512, 256L << 20,
                FrontendTlsConfig.DISABLED, 60, 0), props);
    }

    @Test
    void readsTheStatementMemoryLimitInBytesOrWithAUnit() {
        assertEquals(256L << 20, load("props:\n  sql-show: false\n").props().statementMemoryLimit());
        assertEquals(268_435_456L, load("props:\n  proxy-statement-memory-limit: 268435456\n").props().statementMemoryLimit());
        assertEquals(64L << 20, load("props:\n  proxy-statement-memory-limit: 64MB\n").props().statementMemoryLimit());
        assertEquals(1L << 30, load("props:\n  proxy-statement-memory-limit: \"1 GiB\"\n").props().statementMemoryLimit());
        assertEquals(512L << 10, load("props:\n  proxy-statement-memory-limit: 512kB\n").props().statementMemoryLimit());
        assertErrorContains("props.proxy-statement-memory-limit: expected a memory size such as 268435456, 256MB or 1GB (more than 0), got 0",
                "props:\n  proxy-statement-memory-limit: 0\n");
        assertErrorContains("got lots", "props:\n  proxy-statement-memory-limit: lots\n");
    }

    @Test
    void readsTheDoorsProps() {
        ServerProps props = load("""
                props:
                  proxy-bind-address: "*"
                  proxy-frontend-ssl-enabled: true
                  proxy-frontend-ssl-version: TLSv1.3
                  proxy-frontend-ssl-cipher: TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256
                  proxy-frontend-ssl-cert-file: /etc/ashlar/server.crt
                  proxy-frontend-ssl-key-file: /etc/ashlar/server.key
                  proxy-frontend-ssl-required: true
                  proxy-frontend-authentication-timeout-seconds: 5
                  proxy-frontend-auth-delay-milliseconds: 500
                """).props();
        assertEquals("*", props.bindAddress());
        assertEquals(new FrontendTlsConfig(true, List.of("TLSv1.3"), List.of("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256"),
                Optional.of("/etc/ashlar/server.crt"), Optional.of("/etc/ashlar/server.key"), true), props.frontendTls());
        assertEquals(5, props.authenticationTimeoutSeconds());
        assertEquals(500, props.authDelayMilliseconds());
        ServerProps selfSigned = load("props:\n  proxy-frontend-ssl-enabled: true\n").props();
        assertEquals(new FrontendTlsConfig(true, List.of("TLSv1.2", "TLSv1.3"), List.of(), Optional.empty(), Optional.empty(),
                false), selfSigned.frontendTls());
        assertEquals("127.0.0.1", selfSigned.bindAddress(), "only this machine's clients by default");
    }

    @Test
    void doorPropErrors() {
        assertErrorContains("props.proxy-frontend-ssl-version: TLS version 'TLSv1.1' is not supported",
                "props:\n  proxy-frontend-ssl-enabled: true\n  proxy-frontend-ssl-version: TLSv1.1,TLSv1.2\n");
        assertErrorContains("props.proxy-frontend-ssl-cert-file: proxy-frontend-ssl-cert-file and proxy-frontend-ssl-key-file go together",
                "props:\n  proxy-frontend-ssl-enabled: true\n  proxy-frontend-ssl-cert-file: /x.crt\n");
        assertErrorContains("props.proxy-frontend-ssl-cert-file: proxy-frontend-ssl-cert-file needs proxy-frontend-ssl-enabled: true",
                "props:\n  proxy-frontend-ssl-cert-file: /x.crt\n  proxy-frontend-ssl-key-file: /x.key\n");
        assertErrorContains("props.proxy-frontend-ssl-required: proxy-frontend-ssl-required needs proxy-frontend-ssl-enabled: true",
                "props:\n  proxy-frontend-ssl-required: true\n");
        assertErrorContains("props.proxy-frontend-authentication-timeout-seconds: expected a number of seconds from 1 to 600",
                "props:\n  proxy-frontend-authentication-timeout-seconds: 0\n");
        assertErrorContains("expected a number of seconds from 1 to 600 (PostgreSQL's authentication_timeout), got 601",
                "props:\n  proxy-frontend-authentication-timeout-seconds: 601\n");
        assertErrorContains("props.proxy-frontend-auth-delay-milliseconds: expected a number of milliseconds, 0 or more",
                "props:\n  proxy-frontend-auth-delay-milliseconds: -1\n");
        assertErrorContains("user app: sslRequired needs proxy-frontend-ssl-enabled: true",
                "authority:\n  users:\n    - user: app\n      password: x\n      sslRequired: true\n");
    }

    @Test
    void readsSslRequiredUsersAndTheDefaultMethod() {
        ServerConfig server = load("""
                authority:
                  users:
                    - user: app
                      password: secret
                      sslRequired: true
                    - user: report
                      password: other
                  authenticators:
                    scram:
                      type: SCRAM_SHA256
                  defaultAuthenticator: scram
                props:
                  proxy-frontend-ssl-enabled: true
                """);
        assertEquals(List.of(new ProxyUser("app", "%", "secret", ProxyUser.SCRAM_SHA_256, true),
                new ProxyUser("report", "%", "other", ProxyUser.SCRAM_SHA_256, false)), server.users());
        assertEquals(ProxyUser.SCRAM_SHA_256, server.defaultAuthenticationMethod());
        assertEquals(ProxyUser.PROTOCOL_DEFAULT, load("authority:\n  users: [a@%:a]\n").defaultAuthenticationMethod());
    }

    @Test
    void readsDatabasePermittedInEveryShardingSphereSpelling() {
        PrivilegeConfig expected = PrivilegeConfig.databasePermitted(List.of(
                new PrivilegeConfig.DatabaseGrant("root", "localhost", "sharding_db"),
                new PrivilegeConfig.DatabaseGrant("root", "localhost", "test_db"),
                new PrivilegeConfig.DatabaseGrant("my_user", "%", "sharding_db")));
        // 5.1 (and 5.0): a rule with provider; SCHEMA_PRIVILEGES_PERMITTED and user-schema-mappings were its first names.
        assertEquals(expected, load("""
                rules:
                  - !AUTHORITY
                    users:
                      - root@localhost:root
                      - my_user@:pwd
                    provider:
                      type: DATABASE_PERMITTED
                      props:
                        user-database-mappings: root@localhost=sharding_db, root@localhost=test_db, my_user@=sharding_db
                """).privilege());
        assertEquals(expected, load("""
                rules:
                  - !AUTHORITY
                    users:
                      - root@localhost:root
                      - my_user@:pwd
                    provider:
                      type: SCHEMA_PRIVILEGES_PERMITTED
                      props:
                        user-schema-mappings: root@localhost=sharding_db,root@localhost=test_db,my_user@=sharding_db
                """).privilege());
        // 5.2-5.3: the rule with privilege.
        assertEquals(expected, load("""
                rules:
                  - !AUTHORITY
                    users:
                      - user: root@localhost
                        password: root
                      - user: my_user
                        password: pwd
                    privilege:
                      type: DATABASE_PERMITTED
                      props:
                        user-database-mappings: root@localhost=sharding_db, root@localhost=test_db, my_user@=sharding_db
                """).privilege());
        // 5.4-5.5: the authority key.
        ServerConfig server = load("""
                authority:
                  users:
                    - user: root@localhost
                      password: root
                    - user: my_user
                      password: pwd
                  privilege:
                    type: DATABASE_PERMITTED
                    props:
                      user-database-mappings: root@localhost=sharding_db, root@localhost=test_db, my_user@%=sharding_db
                """);
        assertEquals(expected, server.privilege());
        assertEquals(java.util.Set.of("sharding_db", "test_db"), server.privilege().databasesOf(server.users().get(0)));
        assertEquals(java.util.Set.of("sharding_db"), server.privilege().databasesOf(server.users().get(1)));
        assertEquals(PrivilegeConfig.ALL_PERMITTED, load("authority:\n  users: [a@%:a]\n  privilege:\n    type: ALL_PERMITTED\n")
                .privilege());
    }

    @Test
    void aGrantToAnotherHostGrantsNothing() {
        ServerConfig server = load("""
                authority:
                  users:
                    - user: app@10.0.0.1
                      password: x
                  privilege:
                    type: DATABASE_PERMITTED
                    props:
                      user-database-mappings: app@10.0.0.2=orders, APP@10.0.0.1=reports
                """);
        assertEquals(java.util.Set.of("reports"), server.privilege().databasesOf(server.users().get(0)));
    }

    @Test
    void privilegeErrors() {
        assertErrorContains("privilege type 'NATIVE' is not supported by Ashlar",
                "authority:\n  users: [a@%:a]\n  privilege:\n    type: NATIVE\n");
        assertErrorContains("DATABASE_PERMITTED needs props: {user-database-mappings:",
                "authority:\n  users: [a@%:a]\n  privilege:\n    type: DATABASE_PERMITTED\n");
        assertErrorContains("mapping 'a=db' is not <user>@<host>=<database>",
                "authority:\n  users: [a@%:a]\n  privilege:\n    type: DATABASE_PERMITTED\n    props:\n      user-database-mappings: a=db\n");
        assertErrorContains("mapping 'a@%=' is not <user>@<host>=<database>",
                "authority:\n  users: [a@%:a]\n  privilege:\n    type: DATABASE_PERMITTED\n    props:\n      user-database-mappings: a@%=\n");
        assertErrorContains("unknown key 'user-db-mappings'",
                "authority:\n  users: [a@%:a]\n  privilege:\n    type: DATABASE_PERMITTED\n    props:\n      user-db-mappings: a@%=x\n");
        assertErrorContains("the privilege is given twice",
                "rules:\n- !AUTHORITY\n  users: [a@%:a]\n  provider:\n    type: ALL_PERMITTED\n  privilege:\n    type: ALL_PERMITTED\n");
    }

    @Test
    void propErrors() {
        assertEquals("server.yaml: props: unknown key 'sql-shw' (did you mean 'sql-show'?); see docs/configuration.md for the keys "
                + "Ashlar accepts (line 2, column 3)", errorOf("props:\n  sql-shw: true\n"));
        assertErrorContains("props.proxy-default-port: expected a port number (1-65535), got 'http'", "props:\n  proxy-default-port: http\n");
        assertErrorContains("props.proxy-default-port: expected a port number (1-65535), got 70000", "props:\n  proxy-default-port: 70000\n");
        assertErrorContains("props.sql-show: expected true or false, got 'maybe'", "props:\n  sql-show: maybe\n");
        assertErrorContains("props.max-connections-size-per-query: expected a positive integer, got '0'", "props:\n  max-connections-size-per-query: 0\n");
        assertErrorContains("Ashlar speaks the PostgreSQL and openGauss protocols only, got MySQL",
                "props:\n  proxy-frontend-database-protocol-type: MySQL\n");
        assertErrorContains("props: expected a mapping of keys to values, got a list", "props:\n  - sql-show\n");
    }

    @Test
    void readsModes() {
        assertEquals(ModeConfig.STANDALONE, load("mode:\n  type: Standalone\n").mode());
        assertEquals(ModeConfig.Type.STANDALONE, load("mode:\n  type: Memory\n").mode().type());
        ModeConfig file = load("mode:\n  type: Standalone\n  repository:\n    type: File\n    props:\n      path: /tmp/ss\n  overwrite: true\n").mode();
        assertEquals(new ModeConfig(ModeConfig.Type.STANDALONE, Optional.of(new RepositoryConfig("File", java.util.Map.of("path", "/tmp/ss"))), true), file);
        ModeConfig cluster = load("""
                mode:
                  type: Cluster
                  repository:
                    type: ZooKeeper
                    props:
                      namespace: ashlar
                      server-lists: zk1:2181,zk2:2181
                      digest: user:secret
                  overwrite: false
                """).mode();
        assertEquals(ModeConfig.Type.CLUSTER, cluster.type());
        assertEquals("zk1:2181,zk2:2181", cluster.repository().orElseThrow().prop("server-lists", ""));
        assertEquals("user:secret", cluster.repository().orElseThrow().prop("digest", ""));
    }

    @Test
    void modeErrors() {
        assertErrorContains("mode.type: unknown mode type 'Clustered' (expected Standalone or Cluster)", "mode:\n  type: Clustered\n");
        assertErrorContains("mode: mode Cluster needs 'repository: {type: ZooKeeper, props: {namespace, server-lists}}'", "mode:\n  type: Cluster\n");
        assertErrorContains("mode.repository.type: cluster repository type 'Etcd' is not supported by Ashlar (expected ZooKeeper)",
                "mode:\n  type: Cluster\n  repository:\n    type: Etcd\n    props:\n      server-lists: http://e:2379\n");
        assertErrorContains("mode.repository.props: missing 'server-lists'",
                "mode:\n  type: Cluster\n  repository:\n    type: ZooKeeper\n    props:\n      namespace: x\n");
        assertErrorContains("mode.repository.props: unknown key 'serverLists'",
                "mode:\n  type: Cluster\n  repository:\n    type: ZooKeeper\n    props:\n      serverLists: zk:2181\n");
        assertErrorContains("mode.repository.props.maxRetries: expected a non-negative integer, got 'many'",
                "mode:\n  type: Cluster\n  repository:\n    type: ZooKeeper\n    props:\n      server-lists: zk:2181\n      maxRetries: many\n");
    }

    @Test
    void globalRulesAreIgnoredButUnknownOnesFail() {
        load("transaction:\n  defaultType: XA\nsqlFederation:\n  sqlFederationEnabled: true\nsqlTranslator:\n  type: NATIVE\n"
                + "traffic:\n  trafficStrategies: {}\nglobalClock:\n  type: TSO\nlabels: [a, b]\nrules:\n- !SQL_TRANSLATOR\n  type: NATIVE\n");
        assertErrorContains("unknown key 'sqlparser'", "sqlparser:\n  sqlCommentParseEnabled: true\n");
        assertErrorContains("rules[0]: unknown global rule !FOO", "rules:\n- !FOO\n  a: b\n");
        assertErrorContains("rules[0]: rule !SHARDING belongs in a config-*.yaml file", "rules:\n- !SHARDING\n  tables: {}\n");
        assertErrorContains("rules[0]: expected a tagged global rule such as !AUTHORITY, got a mapping", "rules:\n- users: []\n");
    }

    @Test
    void transactionTypeIsXaUnlessLocalIsChosen() {
        assertEquals(TransactionConfig.DEFAULTS, load("props:\n  sql-show: false\n").transaction());
        assertEquals(new TransactionConfig(false, java.nio.file.Path.of("transaction-log")),
                load("transaction:\n  defaultType: LOCAL\n").transaction());
        assertEquals(new TransactionConfig(true, java.nio.file.Path.of("/var/lib/ashlar/2pc")),
                load("rules:\n- !TRANSACTION\n  defaultType: XA\n  providerType: Atomikos\nprops:\n  transaction-log-directory: /var/lib/ashlar/2pc\n")
                        .transaction());
        assertErrorContains("transaction type BASE is not supported: Ashlar runs XA (two-phase commit, its default) or LOCAL",
                "transaction:\n  defaultType: BASE\n");
        assertErrorContains("the transaction rule is configured twice",
                "transaction:\n  defaultType: XA\nrules:\n- !TRANSACTION\n  defaultType: LOCAL\n");
    }
}
