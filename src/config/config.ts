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
  readonly resilience: ResilienceConfig;
}

/** Overload, timeout and shutdown limits (docs/resilience.md explains each). */
export interface ResilienceConfig {
  /** MySQL/MariaDB connections in the pool. */
  readonly dbPoolSize: number;
  /** Requests that may wait for a pooled connection; more are refused at once (503). */
  readonly dbQueueLimit: number;
  /** Longest wait for a pooled connection before the request is answered 503. */
  readonly dbAcquireTimeoutMs: number;
  /** Longest run of one SQL statement (server-side limit, and a client-side one just after it); 0 = none. */
  readonly dbQueryTimeoutMs: number;
  /** Longest time /readyz waits for the database before answering 503. */
  readonly readinessTimeoutMs: number;
  /** Seconds a client is told to wait (Retry-After) when refused for overload or database trouble. */
  readonly retryAfterSeconds: number;
  /** Time from SIGTERM to a forced exit 1. */
  readonly shutdownGraceMs: number;
  /** While draining, how long an idle open connection may still bring a request before it is closed. */
  readonly shutdownIdleMs: number;
  /** Node's headersTimeout and requestTimeout: slow clients cannot hold a connection longer. */
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body. */
  readonly jsonMaxDepth: number;
}

export const DEFAULT_RESILIENCE: ResilienceConfig = Object.freeze({
  dbPoolSize: 10,
  dbQueueLimit: 200,
  dbAcquireTimeoutMs: 3000,
  dbQueryTimeoutMs: 4000,
  readinessTimeoutMs: 1500,
  retryAfterSeconds: 2,
  shutdownGraceMs: 10_000,
  shutdownIdleMs: 500,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
  jsonMaxDepth: 64,
});

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATABASE_URL = "sqlite:data/regapi.sqlite";

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

export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith("sqlite:")) {
    const file = url.slice("sqlite:".length);
    if (file === "") throw new ConfigError("DATABASE_URL", `missing file name; ${DATABASE_URL_HELP}`);
    return { kind: "sqlite", file: file === ":memory:" ? ":memory:" : file };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("DATABASE_URL", `"${redactUrl(url)}" is not a URL; ${DATABASE_URL_HELP}`);
  }
  const kind = parsed.protocol.replace(/:$/, "");
  if (kind !== "mysql" && kind !== "mariadb") {
    throw new ConfigError("DATABASE_URL", `unsupported scheme "${kind}:"; ${DATABASE_URL_HELP}`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!parsed.hostname || !database) {
    throw new ConfigError("DATABASE_URL", `host and database name are required; ${DATABASE_URL_HELP}`);
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
  DB_POOL_SIZE: integerInRange("DB_POOL_SIZE", 1, 1000).optional(),
  DB_QUEUE_LIMIT: integerInRange("DB_QUEUE_LIMIT", 1, 100_000).optional(),
  DB_ACQUIRE_TIMEOUT_MS: integerInRange("DB_ACQUIRE_TIMEOUT_MS", 1, 600_000).optional(),
  DB_QUERY_TIMEOUT_MS: integerInRange("DB_QUERY_TIMEOUT_MS", 0, 3_600_000).optional(),
  READINESS_TIMEOUT_MS: integerInRange("READINESS_TIMEOUT_MS", 1, 60_000).optional(),
  RETRY_AFTER_SECONDS: integerInRange("RETRY_AFTER_SECONDS", 1, 3600).optional(),
  SHUTDOWN_GRACE_MS: integerInRange("SHUTDOWN_GRACE_MS", 100, 600_000).optional(),
  SHUTDOWN_IDLE_MS: integerInRange("SHUTDOWN_IDLE_MS", 0, 60_000).optional(),
  HTTP_HEADERS_TIMEOUT_MS: integerInRange("HTTP_HEADERS_TIMEOUT_MS", 1000, 600_000).optional(),
  HTTP_REQUEST_TIMEOUT_MS: integerInRange("HTTP_REQUEST_TIMEOUT_MS", 1000, 3_600_000).optional(),
  JSON_MAX_DEPTH: integerInRange("JSON_MAX_DEPTH", 2, 1000).optional(),
});

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
  return Object.freeze({
    database: parseDatabaseUrl(values.DATABASE_URL),
    databaseUrl: values.DATABASE_URL,
    port: values.PORT,
    host: values.HOST,
    logLevel: values.LOG_LEVEL as LogLevel,
    demo: values.DEMO,
    graphqlIntrospection: values.GRAPHQL_INTROSPECTION,
    resilience: Object.freeze({
      dbPoolSize: values.DB_POOL_SIZE ?? DEFAULT_RESILIENCE.dbPoolSize,
      dbQueueLimit: values.DB_QUEUE_LIMIT ?? DEFAULT_RESILIENCE.dbQueueLimit,
      dbAcquireTimeoutMs: values.DB_ACQUIRE_TIMEOUT_MS ?? DEFAULT_RESILIENCE.dbAcquireTimeoutMs,
      dbQueryTimeoutMs: values.DB_QUERY_TIMEOUT_MS ?? DEFAULT_RESILIENCE.dbQueryTimeoutMs,
      readinessTimeoutMs: values.READINESS_TIMEOUT_MS ?? DEFAULT_RESILIENCE.readinessTimeoutMs,
      retryAfterSeconds: values.RETRY_AFTER_SECONDS ?? DEFAULT_RESILIENCE.retryAfterSeconds,
      shutdownGraceMs: values.SHUTDOWN_GRACE_MS ?? DEFAULT_RESILIENCE.shutdownGraceMs,
      shutdownIdleMs: values.SHUTDOWN_IDLE_MS ?? DEFAULT_RESILIENCE.shutdownIdleMs,
      httpHeadersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS ?? DEFAULT_RESILIENCE.httpHeadersTimeoutMs,
      httpRequestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS ?? DEFAULT_RESILIENCE.httpRequestTimeoutMs,
      jsonMaxDepth: values.JSON_MAX_DEPTH ?? DEFAULT_RESILIENCE.jsonMaxDepth,
    }),
  });
}
