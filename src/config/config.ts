import { z } from "zod";
import { DATABASE_ENV, databaseSettings } from "./database-settings";
import type { DatabaseConfig, DatabaseConnectionConfig, ReplicasConfig } from "./database-settings";
import { DELIVERY_ENV, deliverySettings, type DeliveryConfig } from "./delivery-settings";
import { BOOLEAN_WORDS, booleanWord, commaList, ConfigError, integerInRange } from "./env-values";
import {
  REDIS_AND_RATE_LIMIT_ENV,
  redisAndRateLimitSettings,
  type RateLimitConfig,
  type SharedStateConfig,
} from "./redis-settings";
import {
  checkShutdownSettings,
  RESILIENCE_ENV,
  resilienceSettings,
  type ResilienceConfig,
} from "./resilience-settings";
import { SUBSCRIPTIONS_ENV, subscriptionsSettings, type SubscriptionsConfig } from "./subscriptions-settings";

// The one configuration: every variable read and validated once, at start. Each concern declares
// its variables and builds its settings in its own module (database, delivery, Redis and rate
// limits, resilience, subscriptions); this one holds the service's own variables and assembles
// them into one frozen Config.

export {
  DEFAULT_DATABASE_CONNECTION,
  DEFAULT_DATABASE_URL,
  DEFAULT_REPLICAS,
  parseDatabaseUrl,
  redactUrl,
  type DatabaseConfig,
  type DatabaseConnectionConfig,
  type ReplicasConfig,
} from "./database-settings";
export { DEFAULT_DELIVERY, defaultMailDir, type DeliveryConfig } from "./delivery-settings";
export { ConfigError } from "./env-values";
export { RATE_LIMITS_OFF, type RateLimitConfig, type SharedStateConfig } from "./redis-settings";
export { DEFAULT_RESILIENCE, type ResilienceConfig } from "./resilience-settings";
export { DEFAULT_SUBSCRIPTIONS, type SubscriptionsConfig } from "./subscriptions-settings";

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

/** false: the socket's address is the client; a number: that many proxies in front; a list: trusted proxy addresses/subnets. */
export type TrustProxy = boolean | number | readonly string[];

export const LOG_FORMATS = ["auto", "json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Defaults that code outside this module also needs (a request context built without a config,
 * an account cache before the app configures it): written here once.
 */
export const DEFAULT_LOGIN_TOKEN_TTL_S = 900;
export const DEFAULT_ACCOUNT_CACHE_TTL_MS = 5000;
export const DEFAULT_IDEMPOTENCY_WAIT_MS = 10_000;
/** An origin as browsers send it: scheme, host, optional port; nothing else. */
const CORS_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;
/** An address or subnet (IPv4 or IPv6, optional /prefix) or one of express's named ranges. */
const TRUSTED_PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-f]*[.:][0-9a-f:.]*(\/\d{1,3})?)$/;

/** The service's own variables: listening, logs, GraphQL, keys and sessions, browsers and proxies. */
const SERVICE_ENV = {
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
  API_KEY_ROTATION_GRACE_S: integerInRange("API_KEY_ROTATION_GRACE_S", 0, 30 * 24 * 3600).default(3600),
  LOG_FORMAT: z
    .string()
    .default("auto")
    .refine((v): v is LogFormat => (LOG_FORMATS as readonly string[]).includes(v), {
      message: `LOG_FORMAT: expected one of ${LOG_FORMATS.join(", ")}`,
    }),
  LOGIN_TOKEN_TTL_S: integerInRange("LOGIN_TOKEN_TTL_S", 1, 7 * 24 * 3600).default(DEFAULT_LOGIN_TOKEN_TTL_S),
  ACCOUNT_CACHE_TTL_MS: integerInRange("ACCOUNT_CACHE_TTL_MS", 0, 60_000).default(DEFAULT_ACCOUNT_CACHE_TTL_MS),
  CORS_ORIGINS: commaList()
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
};

const envSchema = z.object({
  ...DATABASE_ENV,
  ...SERVICE_ENV,
  ...REDIS_AND_RATE_LIMIT_ENV,
  ...DELIVERY_ENV,
  ...RESILIENCE_ENV,
  ...SUBSCRIPTIONS_ENV,
});

/** Every environment variable the service reads (compose files and docs are checked against it). */
export const SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

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
  checkShutdownSettings(values);
  const { database, databaseUrl, databaseConnection, replicas } = databaseSettings(values);
  return Object.freeze({
    database,
    databaseUrl,
    port: values.PORT,
    host: values.HOST,
    logLevel: values.LOG_LEVEL as LogLevel,
    demo: values.DEMO,
    graphqlIntrospection: values.GRAPHQL_INTROSPECTION,
    graphqlCompiledExecution: values.GRAPHQL_COMPILED_EXECUTION,
    graphqlCompileOnFirstRun: values.GRAPHQL_COMPILE_ON_FIRST_RUN,
    databaseConnection,
    ...redisAndRateLimitSettings(values),
    apiKeyRotationGraceSeconds: values.API_KEY_ROTATION_GRACE_S,
    logFormat: values.LOG_FORMAT as LogFormat,
    loginTokenTtlSeconds: values.LOGIN_TOKEN_TTL_S,
    corsOrigins: Object.freeze([...values.CORS_ORIGINS]),
    accountCacheTtlMs: values.ACCOUNT_CACHE_TTL_MS,
    trustProxy: values.TRUST_PROXY,
    idempotencyWaitMs: values.IDEMPOTENCY_WAIT_MS,
    delivery: deliverySettings(values, database),
    subscriptions: subscriptionsSettings(values),
    resilience: resilienceSettings(values),
    replicas,
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
