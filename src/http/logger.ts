import pino, { type Logger } from "pino";
import type { LogLevel } from "../config/config";

export type { Logger };

/** Header and body members that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["api-token"]',
  "req.headers.authorization",
  "req.headers.cookie",
  // pino wildcards match one level only: a password is redacted at the top and two levels down.
  "password",
  "*.password",
  "*.*.password",
  "*.apiToken",
  "*.token",
  "doc.password",
];

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" }, base: { service: "regapi" } },
    destination,
  );
}
