import { configWith, RATE_LIMITS_OFF, type Config } from "../../src/config/config";

/**
 * A complete configuration for an in-process test app: the defaults, introspection on and no
 * rate limits (tests send more than a client's minute allows), with `overrides` on top.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return configWith({ graphqlIntrospection: true, rateLimit: RATE_LIMITS_OFF, ...overrides });
}
