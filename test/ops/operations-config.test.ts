import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";

const scratch = mkdtempSync(join(tmpdir(), "regapi-ops-config-"));
const CA_PEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
const caFile = join(scratch, "ca.pem");
writeFileSync(caFile, CA_PEM);
const notPem = join(scratch, "not-pem.txt");
writeFileSync(notPem, "hello");

const MYSQL = "mysql://app:pw@db.internal:3306/regapi";

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

describe("operations configuration", () => {
  it("reads rate limits, the Redis store, key rotation grace and log format", () => {
    const config = loadConfig({
      RATE_LIMIT_PER_MINUTE: "120",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      REDIS_URL: "redis://cache.internal:6379/2",
      REDIS_KEY_PREFIX: "staging:",
      API_KEY_ROTATION_GRACE_S: "0",
      LOG_FORMAT: "json",
    });
    expect(config.rateLimit).toEqual({ perMinute: 120, unauthenticatedPerMinute: 0 });
    // One Redis setting for everything shared: the budgets are its `rate-limit:` keys.
    expect(config.sharedState).toEqual({ redisUrl: "redis://cache.internal:6379/2", keyPrefix: "staging:" });
    expect(config.apiKeyRotationGraceSeconds).toBe(0);
    expect(config.logFormat).toBe("json");
  });

  it.each([
    [{ RATE_LIMIT_PER_MINUTE: "-1" }, 'RATE_LIMIT_PER_MINUTE: "-1" is not an integer from 0 to 1000000'],
    [
      { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "lots" },
      'RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "lots" is not an integer from 0 to 1000000',
    ],
    [{ REDIS_URL: "cache:6379" }, "REDIS_URL: expected redis://host:port or rediss://host:port (TLS)"],
    [
      { RATE_LIMIT_REDIS_PREFIX: "staging:rl:" },
      "RATE_LIMIT_REDIS_PREFIX: no longer read; every Redis key is under REDIS_KEY_PREFIX (rate limits: <REDIS_KEY_PREFIX>rate-limit:)",
    ],
    [{ API_KEY_ROTATION_GRACE_S: "1h" }, 'API_KEY_ROTATION_GRACE_S: "1h" is not an integer from 0 to 2592000'],
    [{ LOG_FORMAT: "xml" }, "LOG_FORMAT: expected one of auto, json, pretty"],
    [{ DATABASE_POOL_SIZE: "0" }, 'DATABASE_POOL_SIZE: "0" is not an integer from 1 to 1000'],
    [{ DATABASE_CONNECT_TIMEOUT_MS: "5s" }, 'DATABASE_CONNECT_TIMEOUT_MS: "5s" is not an integer from 100 to 600000'],
    [{ DATABASE_QUEUE_LIMIT: "0" }, 'DATABASE_QUEUE_LIMIT: "0" is not an integer from 1 to 100000'],
    [{ DATABASE_ACQUIRE_TIMEOUT_MS: "3s" }, 'DATABASE_ACQUIRE_TIMEOUT_MS: "3s" is not an integer from 1 to 600000'],
    [{ DATABASE_QUERY_TIMEOUT_MS: "-1" }, 'DATABASE_QUERY_TIMEOUT_MS: "-1" is not an integer from 0 to 3600000'],
    [{ REDIS_KEY_PREFIX: "has space" }, "REDIS_KEY_PREFIX: expected 1 to 64 letters, digits or _ : . -"],
    [{ SHUTDOWN_ACCEPT_MS: "2s" }, 'SHUTDOWN_ACCEPT_MS: "2s" is not an integer from 0 to 600000'],
    [
      { SHUTDOWN_ACCEPT_MS: "20000" },
      "SHUTDOWN_ACCEPT_MS: 20000 must be below SHUTDOWN_GRACE_MS (15000): the process would be forced out while still accepting",
    ],
  ])("refuses %j", (env, message) => {
    expect(refusal(env)).toBe(message);
  });

  it("reads the shutdown accept window from SHUTDOWN_ACCEPT_MS (500 ms by default)", () => {
    expect(loadConfig({}).resilience.shutdownAcceptMs).toBe(500);
    expect(loadConfig({ SHUTDOWN_ACCEPT_MS: "3000" }).resilience.shutdownAcceptMs).toBe(3000);
  });

  it("never echoes a Redis password in its refusal", () => {
    expect(refusal({ REDIS_URL: "redis :// user:s3cret@cache" })).not.toContain("s3cret");
  });
});

describe("database connection settings", () => {
  it("default to a pool of 10, a 10 s connect timeout, a queue of 10,000 (a memory backstop), 3 s to acquire, 4 s per statement and no TLS", () => {
    expect(loadConfig({ DATABASE_URL: MYSQL }).databaseConnection).toEqual({
      poolSize: 10,
      connectTimeoutMs: 10_000,
      queueLimit: 10_000,
      acquireTimeoutMs: 3000,
      queryTimeoutMs: 4000,
      tls: null,
      wsrepSyncWait: null,
    });
  });

  it("read DATABASE_WSREP_SYNC_WAIT for MariaDB (Galera) and refuse it elsewhere or out of range", () => {
    const config = loadConfig({ DATABASE_URL: "mariadb://app@galera.internal/regapi", DATABASE_WSREP_SYNC_WAIT: "1" });
    expect(config.databaseConnection.wsrepSyncWait).toBe(1);
    expect(refusal({ DATABASE_URL: MYSQL, DATABASE_WSREP_SYNC_WAIT: "1" })).toBe(
      "DATABASE_WSREP_SYNC_WAIT: applies to mariadb:// databases (Galera) only",
    );
    expect(refusal({ DATABASE_WSREP_SYNC_WAIT: "16" })).toBe(
      'DATABASE_WSREP_SYNC_WAIT: "16" is not an integer from 0 to 15',
    );
  });

  it("read the overload bounds from DATABASE_QUEUE_LIMIT, DATABASE_ACQUIRE_TIMEOUT_MS and DATABASE_QUERY_TIMEOUT_MS", () => {
    const config = loadConfig({
      DATABASE_URL: MYSQL,
      DATABASE_QUEUE_LIMIT: "7",
      DATABASE_ACQUIRE_TIMEOUT_MS: "800",
      DATABASE_QUERY_TIMEOUT_MS: "0",
    });
    expect(config.databaseConnection).toMatchObject({ queueLimit: 7, acquireTimeoutMs: 800, queryTimeoutMs: 0 });
    const options = buildDataSourceOptions(config.database, { connection: config.databaseConnection });
    expect(options).toMatchObject({ poolSize: 10, extra: { queueLimit: 7 } });
    // 0 switches the statement limit off: no client-side timeout either.
    expect(options).not.toHaveProperty("maxQueryExecutionTime");
  });

  it("read pool size, connect timeout and ?ssl=true (verified against the system CAs)", () => {
    const config = loadConfig({
      DATABASE_URL: `${MYSQL}?ssl=true`,
      DATABASE_POOL_SIZE: "25",
      DATABASE_CONNECT_TIMEOUT_MS: "3000",
    });
    expect(config.databaseConnection).toMatchObject({ poolSize: 25, connectTimeoutMs: 3000, tls: { ca: null } });
    expect(config.database).toMatchObject({ kind: "mysql", database: "regapi" });
  });

  it("read the CA file named by DATABASE_SSL_CA once, at start", () => {
    expect(loadConfig({ DATABASE_URL: MYSQL, DATABASE_SSL_CA: caFile }).databaseConnection.tls).toEqual({
      ca: CA_PEM,
    });
  });

  it.each([
    [{ DATABASE_URL: `${MYSQL}?ssl=maybe` }, "DATABASE_URL: ssl=maybe is not one of ssl=true, ssl=false"],
    [
      { DATABASE_URL: MYSQL, DATABASE_SSL_CA: join(scratch, "missing.pem") },
      `DATABASE_SSL_CA: cannot read "${join(scratch, "missing.pem")}": ENOENT`,
    ],
    [
      { DATABASE_URL: MYSQL, DATABASE_SSL_CA: notPem },
      `DATABASE_SSL_CA: "${notPem}" holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    ],
    [
      { DATABASE_URL: `${MYSQL}?ssl=false`, DATABASE_SSL_CA: caFile },
      "DATABASE_SSL_CA: is set but DATABASE_URL says ssl=false; drop one of them",
    ],
    [
      { DATABASE_URL: "sqlite::memory:", DATABASE_SSL_CA: caFile },
      "DATABASE_SSL_CA: applies to mysql:// and mariadb:// databases only, not SQLite",
    ],
  ])("refuse %j", (env, message) => {
    expect(refusal(env)).toBe(message);
  });

  it("reach the MySQL/MariaDB DataSource options: pool size, connect timeout and verified TLS", () => {
    const config = loadConfig({
      DATABASE_URL: "mariadb://app:pw@db.internal/regapi?ssl=true",
      DATABASE_SSL_CA: caFile,
      DATABASE_POOL_SIZE: "4",
      DATABASE_CONNECT_TIMEOUT_MS: "2500",
    });
    const options = buildDataSourceOptions(config.database, { connection: config.databaseConnection });
    expect(options).toMatchObject({
      type: "mariadb",
      host: "db.internal",
      poolSize: 4,
      connectTimeout: 2500,
      ssl: { ca: CA_PEM, rejectUnauthorized: true },
    });
    const plain = loadConfig({ DATABASE_URL: MYSQL });
    expect(buildDataSourceOptions(plain.database, { connection: plain.databaseConnection })).toMatchObject({
      poolSize: 10,
      connectTimeout: 10_000,
      ssl: undefined,
    });
  });
});
