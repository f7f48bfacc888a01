import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { RedisStore, type RedisReply } from "rate-limit-redis";
import type { RateLimitConfig } from "../config/config";
import { databaseFailureOf } from "../db/database-failure";
import { TransportError } from "./transport-errors";
import type { ProcessState } from "../domain/process-state";
import type { Logger } from "./logger";
import { authenticateRequest } from "./request-authentication";
import { observationOf } from "./request-observation";
import { throttled, type SharedRedis } from "../shared-state/redis";

const WINDOW_MS = 60_000;

export interface RateLimiter {
  /** Authenticates the request (once; the adapters reuse it), then counts it against its budget. */
  readonly handlers: RequestHandler[];
}

const principalOf = (req: Request) => req.settledAuthentication?.principal ?? null;

/**
 * A request whose credentials could not be checked because the database failed (unreachable,
 * overloaded): the service's trouble, not the client's. It is answered 503 and spends no budget;
 * counting it against its address would answer 429 to every client while the database is down.
 */
const unauthenticatedForDatabase = (req: Request) => {
  const failure = req.settledAuthentication?.failure;
  return failure != null && databaseFailureOf(failure) !== null;
};

/**
 * Requests per minute per API account (authenticated callers) and per client IP (everyone else,
 * including wrong credentials, so nobody spends another account's budget). Counts live in memory,
 * or in Redis (keys `<REDIS_KEY_PREFIX>rate-limit:…`) when REDIS_URL is set so that every instance
 * shares one budget. Null when both limits are 0 (off).
 */
export function createRateLimiter(
  config: RateLimitConfig,
  redis: SharedRedis | null,
  state: ProcessState,
  logger: Logger,
): RateLimiter | null {
  if (config.perMinute === 0 && config.unauthenticatedPerMinute === 0) return null;
  const limitFor = (req: Request) => (principalOf(req) ? config.perMinute : config.unauthenticatedPerMinute);

  redis?.onError(
    throttled((error) =>
      logger.warn({ err: error.message }, "rate limit store (Redis) unavailable: requests are let through uncounted"),
    ),
  );

  const limiter = rateLimit({
    windowMs: WINDOW_MS,
    limit: limitFor,
    skip: (req) => limitFor(req) === 0 || unauthenticatedForDatabase(req),
    keyGenerator: (req) => {
      const principal = principalOf(req);
      return principal ? `account:${principal.apiAccountId}` : `ip:${ipKeyGenerator(req.ip ?? "unknown")}`;
    },
    identifier: (req) => (principalOf(req) ? "per-account" : "per-ip"),
    standardHeaders: "draft-8",
    legacyHeaders: false,
    // Limits protect the service; an unreachable Redis must not take the API down with it.
    passOnStoreError: true,
    logger,
    store: redis
      ? new RedisStore({
          prefix: redis.key("rate-limit:"),
          sendCommand: (command: string, ...args: string[]) =>
            redis.commands.call(command, ...args) as Promise<RedisReply>,
        })
      : undefined,
    handler: (req, res, next) => sendRateLimited(req, res, next, limitFor(req)),
  });

  const authenticateFirst: RequestHandler = async (req, _res, next) => {
    await authenticateRequest(req, state);
    next();
  };

  return { handlers: [authenticateFirst, limiter] };
}

function sendRateLimited(req: Request, res: Response, next: NextFunction, limit: number): void {
  const retryAfter = res.getHeader("Retry-After");
  const scope = principalOf(req) ? "for this API account" : "for unauthenticated requests from this address";
  const error = new TransportError(
    "RATE_LIMITED",
    `Too many requests: the limit is ${limit} per minute ${scope}; retry after ${retryAfter ?? 60} s.`,
  );
  if (req.originalUrl.startsWith("/graphql")) {
    observationOf(res).errorCode = error.code;
    res.status(429).json({ errors: [{ message: error.message, extensions: { code: error.code } }] });
    return;
  }
  // REST answers it in its envelope, through its error handler (src/http knows no transport).
  next(error);
}
