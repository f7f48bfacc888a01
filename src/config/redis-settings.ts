import { z } from "zod";
import { integerInRange } from "./env-values";

// Redis and the rate limits that may count in it: REDIS_URL, its one key prefix, the limits per
// minute (docs/operations.md, docs/scale-out.md).

/** State every instance shares through Redis (docs/scale-out.md); without REDIS_URL each keeps its own. */
export interface SharedStateConfig {
  /** REDIS_URL; null: walk positions and account cache invalidation stay in process. */
  readonly redisUrl: string | null;
  /** REDIS_KEY_PREFIX: prefix of every key and channel the service uses in Redis (src/shared-state/redis.ts). */
  readonly keyPrefix: string;
}

/** Requests per minute; 0 switches that limit off. */
export interface RateLimitConfig {
  readonly perMinute: number;
  readonly unauthenticatedPerMinute: number;
}

/** Both limits off (RATE_LIMIT_PER_MINUTE=0 and RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE=0): no limiter is mounted. */
export const RATE_LIMITS_OFF: RateLimitConfig = Object.freeze({
  perMinute: 0,
  unauthenticatedPerMinute: 0,
});

export const REDIS_AND_RATE_LIMIT_ENV = {
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
};

export function redisAndRateLimitSettings(values: z.infer<z.ZodObject<typeof REDIS_AND_RATE_LIMIT_ENV>>): {
  rateLimit: RateLimitConfig;
  sharedState: SharedStateConfig;
} {
  return {
    rateLimit: {
      perMinute: values.RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: values.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
    },
    sharedState: Object.freeze({ redisUrl: values.REDIS_URL ?? null, keyPrefix: values.REDIS_KEY_PREFIX }),
  };
}
