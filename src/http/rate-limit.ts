import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import Redis from "ioredis";
import { RedisStore, type RedisReply } from "rate-limit-redis";
import type { DataSource } from "typeorm";
import type { RateLimitConfig } from "../config/config";
import { databaseFailureOf } from "../db/database-failure";
import { TransportError } from "./transport-errors";
import type { Logger } from "./logger";
import { authenticateRequest } from "./request-authentication";
import { observationOf } from "./request-observation";
import { closeRedis } from "../shared-state/redis";

const WINDOW_MS = 60_000;

export interface RateLimiter {
  /** Authenticates the request (once; the adapters reuse it), then counts it against its budget. */
  readonly handlers: RequestHandler[];
  close(): Promise<void>;
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
 * or in Redis when REDIS_URL is set so that every instance shares one budget. Null when both
 * limits are 0 (off).
 */
export function createRateLimiter(config: RateLimitConfig, dataSource: DataSource, logger: Logger): RateLimiter | null {
  if (config.perMinute === 0 && config.unauthenticatedPerMinute === 0) return null;
  const limitFor = (req: Request) => (principalOf(req) ? config.perMinute : config.unauthenticatedPerMinute);

  let redis: Redis | null = null;
  if (config.redisUrl) {
    // Few retries and a short timeout: a Redis outage should let requests through (below), not stall them.
    redis = new Redis(config.redisUrl, {
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      enableAutoPipelining: true,
      // A disconnect (close() while Redis is unreachable) ends the socket and arms a timer to destroy
      // it; for a socket that had already closed, ioredis waits out the whole timer, 2 s by default,
      // which held a stopped app's process (and Jest's workers) open. Counts need no graceful close.
      disconnectTimeout: 0,
    });
    redis.on("error", (error: Error) => logger.warn({ err: error.message }, "rate limit store (Redis) unavailable"));
  }
  const client = redis;

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
    store: client
      ? new RedisStore({
          prefix: config.redisPrefix,
          sendCommand: (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>,
        })
      : undefined,
    handler: (req, res, next) => sendRateLimited(req, res, next, limitFor(req)),
  });

  const authenticateFirst: RequestHandler = async (req, _res, next) => {
    await authenticateRequest(req, dataSource);
    next();
  };

  return {
    handlers: [authenticateFirst, limiter],
    async close() {
      if (client) await closeRedis(client);
    },
  };
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
