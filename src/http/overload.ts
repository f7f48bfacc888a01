import type { ServerResponse } from "node:http";
import type { Express } from "express";
import { DEFAULT_RESILIENCE } from "../config/config";

/** Where an app keeps its Retry-After (RETRY_AFTER_SECONDS): per app, so two apps in one process differ. */
const RETRY_AFTER = "retryAfterSeconds";

export function setRetryAfter(app: Express, seconds: number): void {
  app.locals[RETRY_AFTER] = seconds;
}

/** Overload and database trouble tell the client when to try again (REST and GraphQL alike). */
export function retryAfterOnUnavailable(res: ServerResponse, code: string): void {
  if (code !== "SERVICE_UNAVAILABLE" || res.headersSent) return;
  // Express gives each response its app; a response of no app gets the default.
  const app = (res as ServerResponse & { app?: Express }).app;
  const seconds = (app?.locals[RETRY_AFTER] as number | undefined) ?? DEFAULT_RESILIENCE.retryAfterSeconds;
  res.setHeader("Retry-After", String(seconds));
}
