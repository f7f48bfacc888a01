import cors from "cors";
import type { RequestHandler } from "express";

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
] as const;

/** Response headers a browser client may read. */
export const CORS_EXPOSED_HEADERS = ["X-Request-Id", "RateLimit", "RateLimit-Policy", "Retry-After"] as const;

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
