import cors from "cors";
import type { RequestHandler } from "express";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "./idempotency";

/** Headers a browser client may send: the API account's, a registrant session's, and the request's own. */
export const CORS_ALLOWED_HEADERS = [
  "Content-Type",
  "Accept",
  "Api-Id",
  "Api-User",
  "Api-Token",
  "Timestamp",
  "Authorization",
  "X-Request-Id",
  "Apollo-Require-Preflight",
  "X-Apollo-Operation-Name",
  IDEMPOTENCY_KEY_HEADER,
] as const;

/** Response headers a browser client may read: a retried write learns it got the stored answer. */
export const CORS_EXPOSED_HEADERS = [
  "X-Request-Id",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  IDEMPOTENT_REPLAYED_HEADER,
] as const;

/**
 * Cross-origin access for the allowed origins only (CORS_ORIGINS). Another origin gets no CORS
 * headers, so the browser keeps the answer from it; Apollo's CSRF prevention stays on regardless.
 * Preflights of allowed origins are answered here (204), before the routes' method checks.
 */
export function corsFor(origins: readonly string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  return cors({
    origin: [...origins],
    methods: ["GET", "POST", "OPTIONS"],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
}
