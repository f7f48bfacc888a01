import { tmpdir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import {
  ConfigError,
  configWith,
  DEFAULT_DATABASE_URL,
  DEFAULT_DELIVERY,
  DEFAULT_REPLICAS,
  DEFAULT_SUBSCRIPTIONS,
  DEFAULT_RESILIENCE,
  defaultMailDir,
  loadConfig,
  parseDatabaseUrl,
  RATE_LIMITS_OFF,
  redactUrl,
} from "../../src/config/config";

/** The ConfigError thrown for `env`, or a failure when the environment is accepted. */
function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

describe("configuration", () => {
  it("defaults to the embedded SQLite file, 127.0.0.1:3000, info logs, demo data and introspection", () => {
    expect(loadConfig({})).toEqual({
      database: { kind: "sqlite", file: "data/regapi.sqlite" },
      databaseUrl: DEFAULT_DATABASE_URL,
      port: 3000,
      host: "127.0.0.1",
      logLevel: "info",
      demo: true,
      graphqlIntrospection: true,
      graphqlCompiledExecution: true,
      graphqlCompileOnFirstRun: false,
      databaseConnection: {
        poolSize: 10,
        connectTimeoutMs: 10_000,
        queueLimit: 10_000,
        acquireTimeoutMs: 3000,
        queryTimeoutMs: 4000,
        wsrepSyncWait: null,
        tls: null,
      },
      rateLimit: { perMinute: 600, unauthenticatedPerMinute: 60 },
      apiKeyRotationGraceSeconds: 3600,
      logFormat: "auto",
      loginTokenTtlSeconds: 900,
      resilience: DEFAULT_RESILIENCE,
      corsOrigins: [],
      trustProxy: false,
      idempotencyWaitMs: 10_000,
      delivery: { ...DEFAULT_DELIVERY, mailDir: defaultMailDir({ kind: "sqlite", file: "data/regapi.sqlite" }) },
      accountCacheTtlMs: 5000,
      sharedState: { redisUrl: null, keyPrefix: "regapi:" },
      replicas: DEFAULT_REPLICAS,
      subscriptions: DEFAULT_SUBSCRIPTIONS,
    });
  });

  it("TRUST_PROXY is true/false, a number of proxies, or a list of addresses, subnets and named ranges", () => {
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "no" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/8, fd00::/8" }).trustProxy).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::/8",
    ]);
    for (const bad of ["*", "proxy.example.com", "10.0.0.0/8;rm", "100"]) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/^TRUST_PROXY: /);
    }
  });

  it("IDEMPOTENCY_WAIT_MS bounds how long a repeated key waits; 100 to 600000", () => {
    expect(loadConfig({ IDEMPOTENCY_WAIT_MS: "2500" }).idempotencyWaitMs).toBe(2500);
    expect(() => loadConfig({ IDEMPOTENCY_WAIT_MS: "50" })).toThrow(/^IDEMPOTENCY_WAIT_MS: /);
  });

  it("MAIL_DIR defaults to a folder of the system's temporary folder named after the database (issue 20)", () => {
    const mailDir = (env: NodeJS.ProcessEnv) => loadConfig(env).delivery.mailDir;
    const fileDb = mailDir({ DATABASE_URL: "sqlite:data/regapi.sqlite" });
    // Outside the checkout, where no test or other checkout writes by accident.
    expect(fileDb.startsWith(join(tmpdir(), "regapi-mail") + sep)).toBe(true);
    expect(basename(fileDb)).toMatch(/^regapi\.sqlite-[0-9a-f]{10}$/);
    expect(relative(process.cwd(), fileDb).startsWith("..")).toBe(true);
    // The same database, however named, is one folder; another database is another.
    expect(mailDir({ DATABASE_URL: `sqlite:${join(process.cwd(), "data/regapi.sqlite")}` })).toBe(fileDb);
    expect(mailDir({ MAIL_DIR: "" })).toBe(fileDb);
    expect(mailDir({ DATABASE_URL: "sqlite:other/regapi.sqlite" })).not.toBe(fileDb);
    const maria = mailDir({ DATABASE_URL: "mariadb://root@127.0.0.1:3306/regapi" });
    expect(basename(maria)).toMatch(/^regapi-[0-9a-f]{10}$/);
    expect(mailDir({ DATABASE_URL: "mariadb://root@127.0.0.1:3306/regapi_second" })).not.toBe(maria);
    expect(mailDir({ DATABASE_URL: "mariadb://root@127.0.0.1:3307/regapi" })).not.toBe(maria);
    // An in-memory database is its process's own.
    expect(basename(mailDir({ DATABASE_URL: "sqlite::memory:" }))).toMatch(/^memory-[0-9a-f]{10}$/);
    expect(DEFAULT_DELIVERY.mailDir).toBe(mailDir({ DATABASE_URL: "sqlite::memory:" }));
  });

  it("the feed sequencer's look: FEED_POLL_IDLE_MS is at least FEED_POLL_MS", () => {
    expect(loadConfig({ FEED_POLL_MS: "3000", FEED_POLL_IDLE_MS: "1000" }).delivery.feedPollIdleMs).toBe(3000);
    expect(() => loadConfig({ FEED_POLL_MS: "5" })).toThrow(/FEED_POLL_MS/);
  });

  it("the delivery worker's settings: DELIVERY_*, WEBHOOK_ALLOW_PRIVATE, EVENT_RETENTION_DAYS, SMTP_URL, MAIL_DIR; bad values are refused by name", () => {
    expect(
      loadConfig({
        DELIVERY_WORKER: "off",
        DELIVERY_POLL_MS: "50",
        FEED_POLL_MS: "100",
        FEED_POLL_IDLE_MS: "60000",
        FEED_PASS_INTERVAL_MS: "0",
        DELIVERY_TIMEOUT_MS: "2000",
        DELIVERY_RETRY_BASE_MS: "1000",
        DELIVERY_RETRY_WINDOW_S: "3600",
        WEBHOOK_ALLOW_PRIVATE: "true",
        EVENT_RETENTION_DAYS: "7",
        SMTP_URL: "smtp://user:pass@mail.example.com:587",
        MAIL_DIR: "/var/lib/regapi/mail",
      }).delivery,
    ).toEqual({
      workerInService: false,
      pollIntervalMs: 50,
      feedPollMs: 100,
      feedPollIdleMs: 60000,
      feedPassIntervalMs: 0,
      timeoutMs: 2000,
      retryBaseMs: 1000,
      retryWindowSeconds: 3600,
      webhookAllowPrivate: true,
      eventRetentionDays: 7,
      smtpUrl: "smtp://user:pass@mail.example.com:587",
      mailDir: "/var/lib/regapi/mail",
    });
    expect(refusal({ DELIVERY_TIMEOUT_MS: "5" }).variable).toBe("DELIVERY_TIMEOUT_MS");
    expect(refusal({ DELIVERY_WORKER: "maybe" }).variable).toBe("DELIVERY_WORKER");
    expect(refusal({ EVENT_RETENTION_DAYS: "0" }).variable).toBe("EVENT_RETENTION_DAYS");
    expect(loadConfig({}).delivery.eventRetentionDays).toBe(30);
    expect(refusal({ SMTP_URL: "http://mail.example.com" }).message).toMatch(/^SMTP_URL: expected smtp:/);
  });

  it("ACCOUNT_CACHE_TTL_MS is 0 (off) to 60000 ms", () => {
    expect(loadConfig({ ACCOUNT_CACHE_TTL_MS: "0" }).accountCacheTtlMs).toBe(0);
    expect(loadConfig({ ACCOUNT_CACHE_TTL_MS: "60000" }).accountCacheTtlMs).toBe(60_000);
    expect(() => loadConfig({ ACCOUNT_CACHE_TTL_MS: "60001" })).toThrow(/ACCOUNT_CACHE_TTL_MS/);
    expect(() => loadConfig({ ACCOUNT_CACHE_TTL_MS: "soon" })).toThrow(/ACCOUNT_CACHE_TTL_MS/);
  });

  it("CORS_ORIGINS is a comma-separated list of origins; a path, a wildcard or a bare host is refused", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://app.example.com, http://localhost:5173" }).corsOrigins).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
    ]);
    for (const bad of ["*", "https://app.example.com/path", "app.example.com", "https://a.example.com,ftp://b"]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(
        /^CORS_ORIGINS: expected a comma-separated list of origins/,
      );
    }
  });

  it("LOGIN_TOKEN_TTL_S sets the login token lifetime in seconds; anything but 1 to 604800 is refused", () => {
    expect(loadConfig({ LOGIN_TOKEN_TTL_S: "60" }).loginTokenTtlSeconds).toBe(60);
    expect(() => loadConfig({ LOGIN_TOKEN_TTL_S: "0" })).toThrow(/LOGIN_TOKEN_TTL_S/);
    expect(() => loadConfig({ LOGIN_TOKEN_TTL_S: "15m" })).toThrow(/LOGIN_TOKEN_TTL_S/);
  });

  it("treats empty variables as unset, as compose files produce them", () => {
    expect(loadConfig({ PORT: "", DEMO: "", DATABASE_URL: "" })).toMatchObject({
      port: 3000,
      demo: true,
      databaseUrl: DEFAULT_DATABASE_URL,
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      DATABASE_URL: "mysql://app:pw@db.internal:3307/regapi",
      PORT: "8080",
      HOST: "0.0.0.0",
      LOG_LEVEL: "debug",
      DEMO: "false",
      GRAPHQL_INTROSPECTION: "no",
      GRAPHQL_COMPILED_EXECUTION: "off",
      GRAPHQL_COMPILE_ON_FIRST_RUN: "on",
    });
    expect(config).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      logLevel: "debug",
      demo: false,
      graphqlIntrospection: false,
      graphqlCompiledExecution: false,
      graphqlCompileOnFirstRun: true,
    });
    expect(config.database).toEqual({
      kind: "mysql",
      host: "db.internal",
      port: 3307,
      user: "app",
      password: "pw",
      database: "regapi",
    });
  });

  it.each(["true", "1", "yes", "on", "TRUE"])("reads DEMO=%s as true", (word) => {
    expect(loadConfig({ DEMO: word }).demo).toBe(true);
  });

  it.each(["false", "0", "no", "off", "Off"])("reads DEMO=%s as false", (word) => {
    expect(loadConfig({ DEMO: word }).demo).toBe(false);
  });

  describe("refuses a bad value, naming the variable and what it allows", () => {
    it.each([
      ["postgres://u:p@h/db", /unsupported scheme "postgres:".*sqlite:<file>.*mysql:\/\/.*mariadb:\/\//],
      ["http://example.test/db", /unsupported scheme "http:"/],
      ["garbage", /is not a URL; expected sqlite:<file>, sqlite::memory:, mysql:\/\/.*mariadb:\/\//],
      ["sqlite:", /missing file name/],
      ["mysql://root@127.0.0.1:3306/", /host and database name are required/],
    ])("DATABASE_URL=%s", (value, allowed) => {
      const error = refusal({ DATABASE_URL: value });
      expect(error.variable).toBe("DATABASE_URL");
      expect(error.message).toMatch(/^DATABASE_URL: /);
      expect(error.message).toMatch(allowed);
    });

    it("never echoes a database password", () => {
      const error = refusal({ DATABASE_URL: "mysql//root:hunter2@db/x" });
      expect(error.message).not.toContain("hunter2");
      expect(redactUrl("mysql://root:hunter2@db:3306/x")).toBe("mysql://root:***@db:3306/x");
    });

    it.each(["65536", "-1", "abc", "30.5", "3000x", "1e3"])("PORT=%s", (value) => {
      const error = refusal({ PORT: value });
      expect(error.variable).toBe("PORT");
      expect(error.message).toBe(`PORT: "${value}" is not an integer from 0 to 65535`);
    });

    it.each(["verbose", "INFO", "warning"])("LOG_LEVEL=%s", (value) => {
      const error = refusal({ LOG_LEVEL: value });
      expect(error.variable).toBe("LOG_LEVEL");
      expect(error.message).toBe("LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent");
    });

    it.each(["maybe", "2", "enabled"])("DEMO=%s", (value) => {
      const error = refusal({ DEMO: value });
      expect(error.variable).toBe("DEMO");
      expect(error.message).toBe(`DEMO: "${value}" is not one of true, false, 1, 0, yes, no`);
    });

    it("GRAPHQL_COMPILE_ON_FIRST_RUN=sometimes", () => {
      expect(refusal({ GRAPHQL_COMPILE_ON_FIRST_RUN: "sometimes" }).message).toMatch(
        /^GRAPHQL_COMPILE_ON_FIRST_RUN: "sometimes" is not one of true, false/,
      );
    });

    it("GRAPHQL_COMPILED_EXECUTION=maybe", () => {
      expect(refusal({ GRAPHQL_COMPILED_EXECUTION: "maybe" }).message).toMatch(
        /^GRAPHQL_COMPILED_EXECUTION: "maybe" is not one of true, false/,
      );
    });

    it("GRAPHQL_INTROSPECTION=sometimes", () => {
      expect(refusal({ GRAPHQL_INTROSPECTION: "sometimes" }).message).toMatch(
        /^GRAPHQL_INTROSPECTION: "sometimes" is not one of true, false/,
      );
    });

    it.each(["   ", "local host", " 0.0.0.0"])("HOST=%j", (value) => {
      const error = refusal({ HOST: value });
      expect(error.variable).toBe("HOST");
      expect(error.message).toBe("HOST: expected a host name or IP address without spaces, e.g. 127.0.0.1 or 0.0.0.0");
    });

    it("takes an empty HOST (like every empty variable) as unset: the default 127.0.0.1", () => {
      expect(loadConfig({ HOST: "" }).host).toBe("127.0.0.1");
    });
  });
});

describe("DATABASE_URL forms", () => {
  it("sqlite:<file>", () => {
    expect(parseDatabaseUrl("sqlite:data/regapi.sqlite")).toEqual({ kind: "sqlite", file: "data/regapi.sqlite" });
    expect(parseDatabaseUrl("sqlite:/var/lib/regapi/db.sqlite")).toEqual({
      kind: "sqlite",
      file: "/var/lib/regapi/db.sqlite",
    });
  });

  it("sqlite::memory:", () => {
    expect(parseDatabaseUrl("sqlite::memory:")).toEqual({ kind: "sqlite", file: ":memory:" });
  });

  it("mysql:// with user, password, host, port and database", () => {
    expect(parseDatabaseUrl("mysql://regapi:s3cret@mysql:3306/regapi")).toEqual({
      kind: "mysql",
      host: "mysql",
      port: 3306,
      user: "regapi",
      password: "s3cret",
      database: "regapi",
    });
  });

  it("mariadb:// with an encoded password and the default port 3306", () => {
    expect(parseDatabaseUrl("mariadb://app:p%40ss%3Aword@127.0.0.1/regapi_test")).toEqual({
      kind: "mariadb",
      host: "127.0.0.1",
      port: 3306,
      user: "app",
      password: "p@ss:word",
      database: "regapi_test",
    });
  });

  it("defaults the user to root and the password to empty", () => {
    expect(parseDatabaseUrl("mariadb://127.0.0.1:3307/test")).toMatchObject({ user: "root", password: "", port: 3307 });
  });
});

describe("configWith", () => {
  it("is loadConfig's defaults with whole settings replaced, an undefined override keeping the default", () => {
    const config = configWith({ port: 4000, trustProxy: undefined, rateLimit: RATE_LIMITS_OFF });
    expect(config).toEqual({ ...loadConfig({}), port: 4000, rateLimit: RATE_LIMITS_OFF });
    expect(config.trustProxy).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });
});

it("subscription limits are settable, each within its range", () => {
  const config = loadConfig({
    SUBSCRIPTIONS_PER_CONNECTION: "5",
    SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: "3",
    SUBSCRIPTION_IDLE_TIMEOUT_MS: "60000",
    SUBSCRIPTION_MESSAGE_MAX_BYTES: "8192",
    SUBSCRIPTION_QUEUE_MAX_EVENTS: "50",
    SUBSCRIPTION_POLL_MS: "100",
    SUBSCRIPTION_POLL_IDLE_MS: "1500",
    SUBSCRIPTION_REAUTH_MS: "5000",
  });
  expect(config.subscriptions).toEqual({
    perConnection: 5,
    connectionsPerAccount: 3,
    idleTimeoutMs: 60_000,
    messageMaxBytes: 8192,
    queueMaxEvents: 50,
    pollIntervalMs: 100,
    pollIdleMs: 1500,
    reauthIntervalMs: 5000,
  });
  // The idle interval is never shorter than the first one.
  expect(loadConfig({ SUBSCRIPTION_POLL_MS: "3000", SUBSCRIPTION_POLL_IDLE_MS: "1000" }).subscriptions.pollIdleMs).toBe(
    3000,
  );
  expect(() => loadConfig({ SUBSCRIPTIONS_PER_CONNECTION: "0" })).toThrow(/^SUBSCRIPTIONS_PER_CONNECTION: /);
  expect(() => loadConfig({ SUBSCRIPTION_MESSAGE_MAX_BYTES: "10" })).toThrow(/^SUBSCRIPTION_MESSAGE_MAX_BYTES: /);
});
