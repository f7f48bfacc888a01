import { configWith, RATE_LIMITS_OFF, type Config } from "../../src/config/config";

/**
 * A complete configuration for an in-process test app: the defaults, introspection on and no
 * rate limits (tests send more than a client's minute allows), with `overrides` on top.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return configWith({ graphqlIntrospection: true, rateLimit: RATE_LIMITS_OFF, ...overrides });
}

/**
 * For tests that count the statements of a request: the API account stays cached for a minute, so
 * the unmeasured request before each measured one keeps it cached however slowly a busy machine
 * runs the two (the default 5 s can run out between them, and the measured one then reads it).
 */
export const STATEMENT_COUNTING: Partial<Config> = { accountCacheTtlMs: 60_000 };
