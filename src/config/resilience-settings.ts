import { type z } from "zod";
import { ConfigError, integerInRange } from "./env-values";

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

/** Probes, Retry-After, shutdown, HTTP timeouts, JSON depth (docs/resilience.md). */
export const RESILIENCE_ENV = {
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
};
type ResilienceValues = z.infer<z.ZodObject<typeof RESILIENCE_ENV>>;

/** Throws when the shutdown settings contradict each other; checked before any other setting is built. */
export function checkShutdownSettings(values: ResilienceValues): void {
  if (values.SHUTDOWN_ACCEPT_MS >= values.SHUTDOWN_GRACE_MS) {
    throw new ConfigError(
      "SHUTDOWN_ACCEPT_MS",
      `${values.SHUTDOWN_ACCEPT_MS} must be below SHUTDOWN_GRACE_MS (${values.SHUTDOWN_GRACE_MS}): the process would be forced out while still accepting`,
    );
  }
}

export function resilienceSettings(values: ResilienceValues): ResilienceConfig {
  return Object.freeze({
    readinessTimeoutMs: values.READINESS_TIMEOUT_MS,
    retryAfterSeconds: values.RETRY_AFTER_SECONDS,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    shutdownAcceptMs: values.SHUTDOWN_ACCEPT_MS,
    shutdownIdleMs: values.SHUTDOWN_IDLE_MS,
    httpHeadersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    jsonMaxDepth: values.JSON_MAX_DEPTH,
  });
}
