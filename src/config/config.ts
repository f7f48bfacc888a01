import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { z } from "zod";

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

export interface Config {
  readonly database: DatabaseConfig;
  readonly databaseUrl: string;
  readonly port: number;
  readonly host: string;
  readonly logLevel: LogLevel;
  readonly demo: boolean;
  readonly graphqlIntrospection: boolean;
  /** Run eligible GraphQL queries compiled by graphql-jit (GRAPHQL_COMPILED_EXECUTION, default true). */
  readonly graphqlCompiledExecution: boolean;
  /**
   * Compile an eligible document on its first run instead of its second (GRAPHQL_COMPILE_ON_FIRST_RUN,
   * default false): for a deployment whose clients send a fixed set of documents; the test suite
   * sets it so every test exercises the compiled path.
   */
  readonly graphqlCompileOnFirstRun: boolean;
  readonly databaseConnection: DatabaseConnectionConfig;
  readonly rateLimit: RateLimitConfig;
  readonly apiKeyRotationGraceSeconds: number;
  readonly logFormat: LogFormat;
  /** Lifetime of a users `login` token in seconds (LOGIN_TOKEN_TTL_S, default 900). */
  readonly loginTokenTtlSeconds: number;
  readonly resilience: ResilienceConfig;
  /** Browser origins allowed to call the API cross-origin (CORS_ORIGINS); empty: none. */
  readonly corsOrigins: readonly string[];
  /** How long an API account row is kept for authentication (ACCOUNT_CACHE_TTL_MS, default 5000; 0: off). */
  readonly accountCacheTtlMs: number;
  /** Express `trust proxy` (TRUST_PROXY): which proxies' X-Forwarded-For gives the client IP; false: none. */
  readonly trustProxy: TrustProxy;
  /** How long a repeated Idempotency-Key request waits for the first one's answer (IDEMPOTENCY_WAIT_MS). */
  readonly idempotencyWaitMs: number;
  readonly delivery: DeliveryConfig;
  /** Read replicas (docs/scale-out.md); no replica: every statement goes to DATABASE_URL. */
  readonly replicas: ReplicasConfig;
  readonly sharedState: SharedStateConfig;
  /** GraphQL subscriptions over WebSocket (docs/graphql-clients.md#live-updates). */
  readonly subscriptions: SubscriptionsConfig;
}

/** Limits of GraphQL subscriptions over WebSocket; each one is an environment variable. */
export interface SubscriptionsConfig {
  /** SUBSCRIPTIONS_PER_CONNECTION: subscriptions one WebSocket may hold at once. */
  readonly perConnection: number;
  /** SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: WebSockets one API account (or one registrant) may hold on one instance. */
  readonly connectionsPerAccount: number;
  /** SUBSCRIPTION_IDLE_TIMEOUT_MS: a WebSocket without a subscription for this long is closed (4000). */
  readonly idleTimeoutMs: number;
  /** SUBSCRIPTION_MESSAGE_MAX_BYTES: the largest message a client may send; larger closes the socket (1009). */
  readonly messageMaxBytes: number;
  /** SUBSCRIPTION_QUEUE_MAX_EVENTS: events waiting to be sent per subscription; more closes the socket (4008). */
  readonly queueMaxEvents: number;
  /** SUBSCRIPTION_POLL_MS: how often an instance with subscribers reads new events from the feed. */
  readonly pollIntervalMs: number;
  /** SUBSCRIPTION_REAUTH_MS: how often a connection's credentials are checked again (revoked or changed: closed, 4403). */
  readonly reauthIntervalMs: number;
}

export const DEFAULT_SUBSCRIPTIONS: SubscriptionsConfig = Object.freeze({
  perConnection: 20,
  connectionsPerAccount: 20,
  idleTimeoutMs: 300_000,
  messageMaxBytes: 64 * 1024,
  queueMaxEvents: 1000,
  pollIntervalMs: 250,
  reauthIntervalMs: 30_000,
});

/** State every instance shares through Redis (docs/scale-out.md); without REDIS_URL each keeps its own. */
export interface SharedStateConfig {
  /** REDIS_URL; null: walk positions and account cache invalidation stay in process. */
  readonly redisUrl: string | null;
  /** REDIS_KEY_PREFIX: prefix of every key and channel the service uses in Redis (src/shared-state/redis.ts). */
  readonly keyPrefix: string;
}

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

/** false: the socket's address is the client; a number: that many proxies in front; a list: trusted proxy addresses/subnets. */
export type TrustProxy = boolean | number | readonly string[];

/** The delivery worker: webhooks and trigger emails (docs/events-and-webhooks.md). */
export interface DeliveryConfig {
  /** DELIVERY_WORKER: run the worker inside the service process (default); off for a separate `regapi worker`. */
  readonly workerInService: boolean;
  /** How often an idle worker looks for due work. */
  readonly pollIntervalMs: number;
  /** Longest wait for a webhook receiver or the SMTP server. */
  readonly timeoutMs: number;
  /** First retry delay; each next one doubles (with jitter), up to an hour. */
  readonly retryBaseMs: number;
  /** Retries stop this long after the first attempt; the delivery is then failed. */
  readonly retryWindowSeconds: number;
  /** Webhook URLs may resolve to loopback, private or link-local addresses (development, tests). */
  readonly webhookAllowPrivate: boolean;
  /**
   * EVENT_RETENTION_DAYS: events fanned out longer ago than this (and with no delivery still
   * pending) are pruned by the worker; a feed cursor older than what was pruned is CURSOR_EXPIRED.
   */
  readonly eventRetentionDays: number;
  /** smtp:// or smtps:// URL; null: emails are written as .eml files to `mailDir`. */
  readonly smtpUrl: string | null;
  readonly mailDir: string;
}

/**
 * Where trigger emails go as .eml files without SMTP_URL: a folder of the system's temporary
 * folder named after the database, outside the checkout. Instances on one database share its
 * outbox and so its folder; another database (each test file's, a second instance's) gets its
 * own. An in-memory database lives as long as its process, and so does its folder's name.
 */
export function defaultMailDir(database: DatabaseConfig): string {
  const identity =
    database.kind === "sqlite"
      ? database.file === ":memory:"
        ? `memory:${process.pid}`
        : `sqlite:${resolve(database.file)}`
      : `${database.kind}://${database.host}:${database.port}/${database.database}`;
  const label =
    database.kind === "sqlite"
      ? database.file === ":memory:"
        ? "memory"
        : basename(database.file)
      : database.database;
  const digest = createHash("sha256").update(identity).digest("hex").slice(0, 10);
  return join(tmpdir(), "regapi-mail", `${label.replace(/[^A-Za-z0-9._-]/g, "_")}-${digest}`);
}

export const DEFAULT_DELIVERY: DeliveryConfig = Object.freeze({
  workerInService: true,
  pollIntervalMs: 500,
  timeoutMs: 10_000,
  retryBaseMs: 30_000,
  retryWindowSeconds: 24 * 3600,
  webhookAllowPrivate: false,
  eventRetentionDays: 30,
  smtpUrl: null,
  mailDir: defaultMailDir({ kind: "sqlite", file: ":memory:" }),
});

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

/** Requests per minute; 0 switches that limit off. */
export interface RateLimitConfig {
  readonly perMinute: number;
  readonly unauthenticatedPerMinute: number;
}

/** Timeout, overload and shutdown limits outside the database pool (docs/resilience.md explains each). */
export interface ResilienceConfig {
  /** Longest time /readyz waits for the database before answering 503. */
  readonly readinessTimeoutMs: number;
  /** Seconds a client is told to wait (Retry-After) when refused for overload or database trouble. */
  readonly retryAfterSeconds: number;
  /** Time from SIGTERM to a forced exit 1. */
  readonly shutdownGraceMs: number;
  /**
   * From SIGTERM, how long the listener keeps accepting new connections (answered with
   * `Connection: close`); behind a load balancer, longer than it takes to notice /readyz 503.
   */
  readonly shutdownAcceptMs: number;
  /** While draining, how long an idle open connection may still bring a request before it is closed. */
  readonly shutdownIdleMs: number;
  /** Node's headersTimeout and requestTimeout: slow clients cannot hold a connection longer. */
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body. */
  readonly jsonMaxDepth: number;
}

export const DEFAULT_RESILIENCE: ResilienceConfig = Object.freeze({
  readinessTimeoutMs: 1500,
  retryAfterSeconds: 2,
  // Above the delivery worker's 10 s send timeout, so a send in flight at SIGTERM is recorded.
  shutdownGraceMs: 15_000,
  // A single process needs only the time for connections the kernel already accepted; behind
  // HAProxy set it above the check interval × fall (docs/scale-out.md).
  shutdownAcceptMs: 500,
  shutdownIdleMs: 500,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
  jsonMaxDepth: 64,
});

export const LOG_FORMATS = ["auto", "json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATABASE_URL = "sqlite:data/regapi.sqlite";

/**
 * Defaults that code outside this module also needs (a request context built without a config,
 * an account cache before the app configures it): written here once.
 */
export const DEFAULT_LOGIN_TOKEN_TTL_S = 900;
export const DEFAULT_ACCOUNT_CACHE_TTL_MS = 5000;
export const DEFAULT_IDEMPOTENCY_WAIT_MS = 10_000;

/** Both limits off (RATE_LIMIT_PER_MINUTE=0 and RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE=0): no limiter is mounted. */
export const RATE_LIMITS_OFF: RateLimitConfig = Object.freeze({
  perMinute: 0,
  unauthenticatedPerMinute: 0,
});

/** An origin as browsers send it: scheme, host, optional port; nothing else. */
/** An address or subnet (IPv4 or IPv6, optional /prefix) or one of express's named ranges. */
const TRUSTED_PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-f]*[.:][0-9a-f:.]*(\/\d{1,3})?)$/;
const CORS_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

/** Raised when a variable is invalid; the message names the variable and what it allows. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  "1": true,
  yes: true,
  on: true,
  false: false,
  "0": false,
  no: false,
  off: false,
};

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

const integerInRange = (variable: string, min: number, max: number) =>
  z.string().transform((raw, ctx) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
      ctx.addIssue({ code: "custom", message: `${variable}: "${raw}" is not an integer from ${min} to ${max}` });
      return z.NEVER;
    }
    return value;
  });

const booleanWord = (variable: string) =>
  z.string().transform((raw, ctx) => {
    const value = BOOLEAN_WORDS[raw.trim().toLowerCase()];
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: `${variable}: "${raw}" is not one of true, false, 1, 0, yes, no` });
      return z.NEVER;
    }
    return value;
  });

const envSchema = z.object({
  DATABASE_URL: z.string().default(DEFAULT_DATABASE_URL),
  PORT: integerInRange("PORT", 0, 65535).default(3000),
  HOST: z
    .string()
    .regex(/^\S+$/, "HOST: expected a host name or IP address without spaces, e.g. 127.0.0.1 or 0.0.0.0")
    .default("127.0.0.1"),
  LOG_LEVEL: z
    .string()
    .default("info")
    .refine((v): v is LogLevel => (LOG_LEVELS as readonly string[]).includes(v), {
      message: `LOG_LEVEL: expected one of ${LOG_LEVELS.join(", ")}`,
    }),
  DEMO: booleanWord("DEMO").default(true),
  GRAPHQL_INTROSPECTION: booleanWord("GRAPHQL_INTROSPECTION").default(true),
  GRAPHQL_COMPILED_EXECUTION: booleanWord("GRAPHQL_COMPILED_EXECUTION").default(true),
  GRAPHQL_COMPILE_ON_FIRST_RUN: booleanWord("GRAPHQL_COMPILE_ON_FIRST_RUN").default(false),
  // Operations: rate limits, key rotation, log format, database connection (docs/operations.md).
  RATE_LIMIT_PER_MINUTE: integerInRange("RATE_LIMIT_PER_MINUTE", 0, 1_000_000).default(600),
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: integerInRange("RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE", 0, 1_000_000).default(
    60,
  ),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, "REDIS_URL: expected redis://host:port or rediss://host:port (TLS)")
    .optional(),
  // Replaced by REDIS_KEY_PREFIX (the budgets are its `rate-limit:` keys): refused, not ignored.
  RATE_LIMIT_REDIS_PREFIX: z
    .never({
      message:
        "RATE_LIMIT_REDIS_PREFIX: no longer read; every Redis key is under REDIS_KEY_PREFIX (rate limits: <REDIS_KEY_PREFIX>rate-limit:)",
    })
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, "REDIS_KEY_PREFIX: expected 1 to 64 letters, digits or _ : . -")
    .default("regapi:"),
  API_KEY_ROTATION_GRACE_S: integerInRange("API_KEY_ROTATION_GRACE_S", 0, 30 * 24 * 3600).default(3600),
  LOG_FORMAT: z
    .string()
    .default("auto")
    .refine((v): v is LogFormat => (LOG_FORMATS as readonly string[]).includes(v), {
      message: `LOG_FORMAT: expected one of ${LOG_FORMATS.join(", ")}`,
    }),
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
  LOGIN_TOKEN_TTL_S: integerInRange("LOGIN_TOKEN_TTL_S", 1, 7 * 24 * 3600).default(DEFAULT_LOGIN_TOKEN_TTL_S),
  ACCOUNT_CACHE_TTL_MS: integerInRange("ACCOUNT_CACHE_TTL_MS", 0, 60_000).default(DEFAULT_ACCOUNT_CACHE_TTL_MS),
  CORS_ORIGINS: z
    .string()
    .transform((raw) =>
      raw
        .split(",")
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ""),
    )
    .refine((origins) => origins.every((origin) => CORS_ORIGIN.test(origin)), {
      message:
        "CORS_ORIGINS: expected a comma-separated list of origins such as https://app.example.com or http://localhost:5173 (scheme, host and optional port; no path, no wildcard)",
    })
    .default([]),
  TRUST_PROXY: z
    .string()
    .transform((raw, ctx): TrustProxy => {
      const text = raw.trim().toLowerCase();
      if (BOOLEAN_WORDS[text] !== undefined && !/^\d+$/.test(text)) return BOOLEAN_WORDS[text];
      if (/^\d{1,2}$/.test(text)) return Number(text);
      const entries = text.split(",").map((entry) => entry.trim());
      if (entries.every((entry) => TRUSTED_PROXY_ENTRY.test(entry))) return Object.freeze(entries);
      ctx.addIssue({
        code: "custom",
        message: `TRUST_PROXY: "${raw}" is not true, false, a number of proxies (0-99), or a comma-separated list of addresses, subnets (10.0.0.0/8) or loopback, linklocal, uniquelocal`,
      });
      return z.NEVER;
    })
    .default(false),
  IDEMPOTENCY_WAIT_MS: integerInRange("IDEMPOTENCY_WAIT_MS", 100, 600_000).default(DEFAULT_IDEMPOTENCY_WAIT_MS),
  // Delivery worker: webhooks and trigger emails (docs/events-and-webhooks.md).
  DELIVERY_WORKER: booleanWord("DELIVERY_WORKER").default(DEFAULT_DELIVERY.workerInService),
  DELIVERY_POLL_MS: integerInRange("DELIVERY_POLL_MS", 10, 60_000).default(DEFAULT_DELIVERY.pollIntervalMs),
  DELIVERY_TIMEOUT_MS: integerInRange("DELIVERY_TIMEOUT_MS", 100, 60_000).default(DEFAULT_DELIVERY.timeoutMs),
  DELIVERY_RETRY_BASE_MS: integerInRange("DELIVERY_RETRY_BASE_MS", 10, 3_600_000).default(DEFAULT_DELIVERY.retryBaseMs),
  DELIVERY_RETRY_WINDOW_S: integerInRange("DELIVERY_RETRY_WINDOW_S", 1, 30 * 24 * 3600).default(
    DEFAULT_DELIVERY.retryWindowSeconds,
  ),
  WEBHOOK_ALLOW_PRIVATE: booleanWord("WEBHOOK_ALLOW_PRIVATE").default(DEFAULT_DELIVERY.webhookAllowPrivate),
  EVENT_RETENTION_DAYS: integerInRange("EVENT_RETENTION_DAYS", 1, 3650).default(DEFAULT_DELIVERY.eventRetentionDays),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, "SMTP_URL: expected smtp://user:pass@host:port or smtps://host:port")
    .optional(),
  MAIL_DIR: z.string().optional(),
  // Resilience: probes, Retry-After, shutdown, HTTP timeouts, JSON depth (docs/resilience.md).
  READINESS_TIMEOUT_MS: integerInRange("READINESS_TIMEOUT_MS", 1, 60_000).default(
    DEFAULT_RESILIENCE.readinessTimeoutMs,
  ),
  RETRY_AFTER_SECONDS: integerInRange("RETRY_AFTER_SECONDS", 1, 3600).default(DEFAULT_RESILIENCE.retryAfterSeconds),
  SHUTDOWN_GRACE_MS: integerInRange("SHUTDOWN_GRACE_MS", 100, 600_000).default(DEFAULT_RESILIENCE.shutdownGraceMs),
  SHUTDOWN_ACCEPT_MS: integerInRange("SHUTDOWN_ACCEPT_MS", 0, 600_000).default(DEFAULT_RESILIENCE.shutdownAcceptMs),
  SHUTDOWN_IDLE_MS: integerInRange("SHUTDOWN_IDLE_MS", 0, 60_000).default(DEFAULT_RESILIENCE.shutdownIdleMs),
  HTTP_HEADERS_TIMEOUT_MS: integerInRange("HTTP_HEADERS_TIMEOUT_MS", 1000, 600_000).default(
    DEFAULT_RESILIENCE.httpHeadersTimeoutMs,
  ),
  HTTP_REQUEST_TIMEOUT_MS: integerInRange("HTTP_REQUEST_TIMEOUT_MS", 1000, 3_600_000).default(
    DEFAULT_RESILIENCE.httpRequestTimeoutMs,
  ),
  JSON_MAX_DEPTH: integerInRange("JSON_MAX_DEPTH", 2, 1000).default(DEFAULT_RESILIENCE.jsonMaxDepth),
  // GraphQL subscriptions over WebSocket (docs/graphql-clients.md#live-updates).
  SUBSCRIPTIONS_PER_CONNECTION: integerInRange("SUBSCRIPTIONS_PER_CONNECTION", 1, 1000).default(
    DEFAULT_SUBSCRIPTIONS.perConnection,
  ),
  SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: integerInRange("SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT", 1, 10_000).default(
    DEFAULT_SUBSCRIPTIONS.connectionsPerAccount,
  ),
  SUBSCRIPTION_IDLE_TIMEOUT_MS: integerInRange("SUBSCRIPTION_IDLE_TIMEOUT_MS", 100, 86_400_000).default(
    DEFAULT_SUBSCRIPTIONS.idleTimeoutMs,
  ),
  SUBSCRIPTION_MESSAGE_MAX_BYTES: integerInRange("SUBSCRIPTION_MESSAGE_MAX_BYTES", 1024, 1024 * 1024).default(
    DEFAULT_SUBSCRIPTIONS.messageMaxBytes,
  ),
  SUBSCRIPTION_QUEUE_MAX_EVENTS: integerInRange("SUBSCRIPTION_QUEUE_MAX_EVENTS", 1, 100_000).default(
    DEFAULT_SUBSCRIPTIONS.queueMaxEvents,
  ),
  SUBSCRIPTION_POLL_MS: integerInRange("SUBSCRIPTION_POLL_MS", 10, 60_000).default(
    DEFAULT_SUBSCRIPTIONS.pollIntervalMs,
  ),
  SUBSCRIPTION_REAUTH_MS: integerInRange("SUBSCRIPTION_REAUTH_MS", 100, 3_600_000).default(
    DEFAULT_SUBSCRIPTIONS.reauthIntervalMs,
  ),
  // Read replicas (docs/scale-out.md).
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((raw) =>
      raw
        .split(",")
        .map((url) => url.trim())
        .filter((url) => url !== ""),
    )
    .default([]),
  REPLICA_WAIT_MS: integerInRange("REPLICA_WAIT_MS", 0, 10_000).default(DEFAULT_REPLICAS.waitMs),
  REPLICA_MAX_LAG_S: integerInRange("REPLICA_MAX_LAG_S", 1, 86_400).default(DEFAULT_REPLICAS.maxLagSeconds),
  REPLICA_CHECK_INTERVAL_MS: integerInRange("REPLICA_CHECK_INTERVAL_MS", 100, 60_000).default(
    DEFAULT_REPLICAS.checkIntervalMs,
  ),
});

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

/** Every environment variable the service reads (compose files and docs are checked against it). */
export const SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

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

/** Reads and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "not set", as shells and compose files often produce them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = String(issue.path[0] ?? "environment");
    const message = issue.message.startsWith(`${variable}: `)
      ? issue.message.slice(variable.length + 2)
      : issue.message;
    throw new ConfigError(variable, message);
  }
  const values = result.data;
  if (values.SHUTDOWN_ACCEPT_MS >= values.SHUTDOWN_GRACE_MS) {
    throw new ConfigError(
      "SHUTDOWN_ACCEPT_MS",
      `${values.SHUTDOWN_ACCEPT_MS} must be below SHUTDOWN_GRACE_MS (${values.SHUTDOWN_GRACE_MS}): the process would be forced out while still accepting`,
    );
  }
  const database = parseDatabaseUrl(values.DATABASE_URL);
  return Object.freeze({
    database,
    databaseUrl: values.DATABASE_URL,
    port: values.PORT,
    host: values.HOST,
    logLevel: values.LOG_LEVEL as LogLevel,
    demo: values.DEMO,
    graphqlIntrospection: values.GRAPHQL_INTROSPECTION,
    graphqlCompiledExecution: values.GRAPHQL_COMPILED_EXECUTION,
    graphqlCompileOnFirstRun: values.GRAPHQL_COMPILE_ON_FIRST_RUN,
    databaseConnection: databaseConnection(database, values.DATABASE_URL, values),
    rateLimit: {
      perMinute: values.RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: values.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
    },
    apiKeyRotationGraceSeconds: values.API_KEY_ROTATION_GRACE_S,
    logFormat: values.LOG_FORMAT as LogFormat,
    loginTokenTtlSeconds: values.LOGIN_TOKEN_TTL_S,
    corsOrigins: Object.freeze([...values.CORS_ORIGINS]),
    accountCacheTtlMs: values.ACCOUNT_CACHE_TTL_MS,
    trustProxy: values.TRUST_PROXY,
    idempotencyWaitMs: values.IDEMPOTENCY_WAIT_MS,
    delivery: Object.freeze({
      workerInService: values.DELIVERY_WORKER,
      pollIntervalMs: values.DELIVERY_POLL_MS,
      timeoutMs: values.DELIVERY_TIMEOUT_MS,
      retryBaseMs: values.DELIVERY_RETRY_BASE_MS,
      retryWindowSeconds: values.DELIVERY_RETRY_WINDOW_S,
      webhookAllowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
      eventRetentionDays: values.EVENT_RETENTION_DAYS,
      smtpUrl: values.SMTP_URL ?? null,
      mailDir: values.MAIL_DIR ?? defaultMailDir(database),
    }),
    sharedState: Object.freeze({ redisUrl: values.REDIS_URL ?? null, keyPrefix: values.REDIS_KEY_PREFIX }),
    subscriptions: Object.freeze({
      perConnection: values.SUBSCRIPTIONS_PER_CONNECTION,
      connectionsPerAccount: values.SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT,
      idleTimeoutMs: values.SUBSCRIPTION_IDLE_TIMEOUT_MS,
      messageMaxBytes: values.SUBSCRIPTION_MESSAGE_MAX_BYTES,
      queueMaxEvents: values.SUBSCRIPTION_QUEUE_MAX_EVENTS,
      pollIntervalMs: values.SUBSCRIPTION_POLL_MS,
      reauthIntervalMs: values.SUBSCRIPTION_REAUTH_MS,
    }),
    resilience: Object.freeze({
      readinessTimeoutMs: values.READINESS_TIMEOUT_MS,
      retryAfterSeconds: values.RETRY_AFTER_SECONDS,
      shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
      shutdownAcceptMs: values.SHUTDOWN_ACCEPT_MS,
      shutdownIdleMs: values.SHUTDOWN_IDLE_MS,
      httpHeadersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
      httpRequestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
      jsonMaxDepth: values.JSON_MAX_DEPTH,
    }),
    replicas: Object.freeze({
      urls: Object.freeze([...values.DATABASE_REPLICA_URLS]),
      databases: Object.freeze(replicaDatabases(database, values.DATABASE_REPLICA_URLS)),
      waitMs: values.REPLICA_WAIT_MS,
      maxLagSeconds: values.REPLICA_MAX_LAG_S,
      checkIntervalMs: values.REPLICA_CHECK_INTERVAL_MS,
    }),
  });
}

/**
 * Every setting at its default (an empty environment), with `overrides` replacing whole settings;
 * an override that is undefined keeps the default.
 */
export function configWith(overrides: Partial<Config> = {}): Config {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return Object.freeze({ ...loadConfig({}), ...given });
}
