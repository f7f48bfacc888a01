import { readFileSync } from "node:fs";
import { z } from "zod";
import { BOOLEAN_WORDS, commaList, ConfigError, integerInRange } from "./env-values";

// The database settings: where the data lives (DATABASE_URL), how the pool connects and sheds
// load (DATABASE_*), and the read replicas (DATABASE_REPLICA_URLS, REPLICA_*).

/** Where the data lives. Parsed from DATABASE_URL once, at start. */
export type DatabaseConfig =
  | { kind: "sqlite"; file: string }
  | {
      kind: "mysql" | "mariadb";
      host: string;
      port: number;
      user: string;
      password: string;
      database: string;
    };

export const DEFAULT_DATABASE_URL = "sqlite:data/regapi.sqlite";

/** Connection and overload settings of a MySQL/MariaDB pool (docs/operations.md, docs/resilience.md); SQLite ignores them. */
export interface DatabaseConnectionConfig {
  readonly poolSize: number;
  readonly connectTimeoutMs: number;
  /** Most requests that may wait for a pooled connection (a memory backstop); more are refused at once (503). */
  readonly queueLimit: number;
  /**
   * Longest wait for a pooled connection before the request is answered 503; a request expected
   * to wait longer (waiters ahead × recent hold time ÷ pool size) is refused at once.
   */
  readonly acquireTimeoutMs: number;
  /** Longest run of one SQL statement (server-side limit, and a client-side one just after it); 0 = none. */
  readonly queryTimeoutMs: number;
  /** null: plain TCP. Otherwise TLS, verifying the server against `ca` (PEM) or the system CAs. */
  readonly tls: { readonly ca: string | null } | null;
  /**
   * Galera's `wsrep_sync_wait` set on every session (DATABASE_WSREP_SYNC_WAIT); null: the server's
   * own setting. 1 makes each read wait until its node has applied every write committed anywhere
   * in the cluster before it (docs/scale-out.md#galera).
   */
  readonly wsrepSyncWait?: number | null;
}

export const DEFAULT_DATABASE_CONNECTION: DatabaseConnectionConfig = Object.freeze({
  poolSize: 10,
  connectTimeoutMs: 10_000,
  queueLimit: 10_000,
  acquireTimeoutMs: 3000,
  queryTimeoutMs: 4000,
  tls: null,
  wsrepSyncWait: null,
});

/** Read replicas of the primary and how reads use them (DATABASE_REPLICA_URLS, REPLICA_*). */
export interface ReplicasConfig {
  /** DATABASE_REPLICA_URLS, in order; empty: none. Each a MariaDB GTID replica of DATABASE_URL. */
  readonly urls: readonly string[];
  readonly databases: readonly Exclude<DatabaseConfig, { kind: "sqlite" }>[];
  /** Longest wait on a replica for a principal's own write before reading on the primary (REPLICA_WAIT_MS). */
  readonly waitMs: number;
  /** A replica further behind than this leaves the rotation (REPLICA_MAX_LAG_S). */
  readonly maxLagSeconds: number;
  /** How often each replica's state is checked, in and out of the rotation (REPLICA_CHECK_INTERVAL_MS). */
  readonly checkIntervalMs: number;
}

export const DEFAULT_REPLICAS: ReplicasConfig = Object.freeze({
  urls: Object.freeze([]),
  databases: Object.freeze([]),
  waitMs: 200,
  maxLagSeconds: 10,
  checkIntervalMs: 1000,
});

/** The database variables (docs/configuration.md, docs/operations.md, docs/scale-out.md). */
export const DATABASE_ENV = {
  DATABASE_URL: z.string().default(DEFAULT_DATABASE_URL),
  DATABASE_POOL_SIZE: integerInRange("DATABASE_POOL_SIZE", 1, 1000).default(DEFAULT_DATABASE_CONNECTION.poolSize),
  DATABASE_CONNECT_TIMEOUT_MS: integerInRange("DATABASE_CONNECT_TIMEOUT_MS", 100, 600_000).default(
    DEFAULT_DATABASE_CONNECTION.connectTimeoutMs,
  ),
  DATABASE_SSL_CA: z.string().optional(),
  DATABASE_QUEUE_LIMIT: integerInRange("DATABASE_QUEUE_LIMIT", 1, 100_000).default(
    DEFAULT_DATABASE_CONNECTION.queueLimit,
  ),
  DATABASE_ACQUIRE_TIMEOUT_MS: integerInRange("DATABASE_ACQUIRE_TIMEOUT_MS", 1, 600_000).default(
    DEFAULT_DATABASE_CONNECTION.acquireTimeoutMs,
  ),
  DATABASE_QUERY_TIMEOUT_MS: integerInRange("DATABASE_QUERY_TIMEOUT_MS", 0, 3_600_000).default(
    DEFAULT_DATABASE_CONNECTION.queryTimeoutMs,
  ),
  DATABASE_WSREP_SYNC_WAIT: integerInRange("DATABASE_WSREP_SYNC_WAIT", 0, 15).optional(),
  DATABASE_REPLICA_URLS: commaList().default([]),
  REPLICA_WAIT_MS: integerInRange("REPLICA_WAIT_MS", 0, 10_000).default(DEFAULT_REPLICAS.waitMs),
  REPLICA_MAX_LAG_S: integerInRange("REPLICA_MAX_LAG_S", 1, 86_400).default(DEFAULT_REPLICAS.maxLagSeconds),
  REPLICA_CHECK_INTERVAL_MS: integerInRange("REPLICA_CHECK_INTERVAL_MS", 100, 60_000).default(
    DEFAULT_REPLICAS.checkIntervalMs,
  ),
};
type DatabaseValues = z.infer<z.ZodObject<typeof DATABASE_ENV>>;

/** The database, its pool and its replicas, from their validated variables. */
export function databaseSettings(values: DatabaseValues): {
  database: DatabaseConfig;
  databaseUrl: string;
  databaseConnection: DatabaseConnectionConfig;
  replicas: ReplicasConfig;
} {
  const database = parseDatabaseUrl(values.DATABASE_URL);
  return {
    database,
    databaseUrl: values.DATABASE_URL,
    databaseConnection: databaseConnection(database, values.DATABASE_URL, values),
    replicas: Object.freeze({
      urls: Object.freeze([...values.DATABASE_REPLICA_URLS]),
      databases: Object.freeze(replicaDatabases(database, values.DATABASE_REPLICA_URLS)),
      waitMs: values.REPLICA_WAIT_MS,
      maxLagSeconds: values.REPLICA_MAX_LAG_S,
      checkIntervalMs: values.REPLICA_CHECK_INTERVAL_MS,
    }),
  };
}

const DATABASE_URL_HELP =
  "expected sqlite:<file>, sqlite::memory:, mysql://user:pass@host:port/db or mariadb://user:pass@host:port/db";

export function parseDatabaseUrl(url: string, variable = "DATABASE_URL"): DatabaseConfig {
  if (url.startsWith("sqlite:")) {
    const file = url.slice("sqlite:".length);
    if (file === "") throw new ConfigError(variable, `missing file name; ${DATABASE_URL_HELP}`);
    return { kind: "sqlite", file: file === ":memory:" ? ":memory:" : file };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(variable, `"${redactUrl(url)}" is not a URL; ${DATABASE_URL_HELP}`);
  }
  const kind = parsed.protocol.replace(/:$/, "");
  if (kind !== "mysql" && kind !== "mariadb") {
    throw new ConfigError(variable, `unsupported scheme "${kind}:"; ${DATABASE_URL_HELP}`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!parsed.hostname || !database) {
    throw new ConfigError(variable, `host and database name are required; ${DATABASE_URL_HELP}`);
  }
  const port = parsed.port ? Number(parsed.port) : 3306;
  return {
    kind,
    host: parsed.hostname,
    port,
    user: decodeURIComponent(parsed.username || "root"),
    password: decodeURIComponent(parsed.password),
    database,
  };
}

/** A URL with its password replaced, safe to print. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):([^@]*)@/, "//$1:***@");
}

/**
 * DATABASE_REPLICA_URLS: replicas of a MySQL-family primary, each a mysql:// or mariadb:// URL
 * that is not the primary's own address (reads sent there would be a second primary path that
 * no health check watches), none twice.
 */
function replicaDatabases(primary: DatabaseConfig, urls: readonly string[]): ReplicasConfig["databases"] {
  if (urls.length === 0) return [];
  if (primary.kind === "sqlite")
    throw new ConfigError(
      "DATABASE_REPLICA_URLS",
      "needs a mysql:// or mariadb:// DATABASE_URL; SQLite has no replicas",
    );
  const seen = new Set<string>([`${primary.host}:${primary.port}`]);
  return urls.map((url, index) => {
    const database = parseDatabaseUrl(url, `DATABASE_REPLICA_URLS entry ${index + 1}`);
    if (database.kind === "sqlite")
      throw new ConfigError(
        "DATABASE_REPLICA_URLS",
        `entry ${index + 1}: a replica is a mysql:// or mariadb:// URL, not SQLite`,
      );
    const address = `${database.host}:${database.port}`;
    if (seen.has(address))
      throw new ConfigError(
        "DATABASE_REPLICA_URLS",
        `entry ${index + 1} (${address}) is ${address === `${primary.host}:${primary.port}` ? "the primary's address (DATABASE_URL)" : "listed twice"}`,
      );
    seen.add(address);
    return database;
  });
}

/** `?ssl=true|false` in a MySQL/MariaDB URL; undefined when absent. */
function sslParameter(url: string): boolean | undefined {
  const query = url.includes("?") ? new URLSearchParams(url.slice(url.indexOf("?") + 1)) : null;
  const raw = query?.get("ssl");
  if (raw == null) return undefined;
  const value = BOOLEAN_WORDS[raw.trim().toLowerCase()];
  if (value === undefined) throw new ConfigError("DATABASE_URL", `ssl=${raw} is not one of ssl=true, ssl=false`);
  return value;
}

/** Reads the CA file once, at start, so a wrong path fails then and not at the first connection. */
function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      "DATABASE_SSL_CA",
      `cannot read "${path}": ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new ConfigError("DATABASE_SSL_CA", `"${path}" holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

function databaseConnection(
  database: DatabaseConfig,
  url: string,
  values: {
    DATABASE_POOL_SIZE: number;
    DATABASE_CONNECT_TIMEOUT_MS: number;
    DATABASE_SSL_CA?: string;
    DATABASE_QUEUE_LIMIT: number;
    DATABASE_ACQUIRE_TIMEOUT_MS: number;
    DATABASE_QUERY_TIMEOUT_MS: number;
    DATABASE_WSREP_SYNC_WAIT?: number;
  },
): DatabaseConnectionConfig {
  const ssl = database.kind === "sqlite" ? undefined : sslParameter(url);
  if (database.kind === "sqlite" && values.DATABASE_SSL_CA !== undefined) {
    throw new ConfigError("DATABASE_SSL_CA", "applies to mysql:// and mariadb:// databases only, not SQLite");
  }
  if (ssl === false && values.DATABASE_SSL_CA !== undefined) {
    throw new ConfigError("DATABASE_SSL_CA", "is set but DATABASE_URL says ssl=false; drop one of them");
  }
  if (database.kind !== "mariadb" && values.DATABASE_WSREP_SYNC_WAIT !== undefined) {
    throw new ConfigError("DATABASE_WSREP_SYNC_WAIT", "applies to mariadb:// databases (Galera) only");
  }
  const ca = values.DATABASE_SSL_CA === undefined ? null : readCaFile(values.DATABASE_SSL_CA);
  return {
    poolSize: values.DATABASE_POOL_SIZE,
    connectTimeoutMs: values.DATABASE_CONNECT_TIMEOUT_MS,
    queueLimit: values.DATABASE_QUEUE_LIMIT,
    acquireTimeoutMs: values.DATABASE_ACQUIRE_TIMEOUT_MS,
    queryTimeoutMs: values.DATABASE_QUERY_TIMEOUT_MS,
    wsrepSyncWait: values.DATABASE_WSREP_SYNC_WAIT ?? null,
    tls: ssl === true || ca !== null ? { ca } : null,
  };
}
