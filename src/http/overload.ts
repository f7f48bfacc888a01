import type { ServerResponse } from "node:http";
import { DEFAULT_RESILIENCE } from "../config/config";

let retryAfter = DEFAULT_RESILIENCE.retryAfterSeconds;

/** Set once at start from RETRY_AFTER_SECONDS. */
export function configureRetryAfter(seconds: number): void {
  retryAfter = seconds;
}

export const retryAfterSeconds = () => retryAfter;

/** Overload and database trouble tell the client when to try again (REST and GraphQL alike). */
export function retryAfterOnUnavailable(res: ServerResponse, code: string): void {
  if (code === "SERVICE_UNAVAILABLE" && !res.headersSent) res.setHeader("Retry-After", String(retryAfter));
}
