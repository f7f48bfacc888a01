import pino, { type Logger } from "pino";
import pinoPretty from "pino-pretty";
import type { LogFormat, LogLevel } from "../config/config";

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

/** LOG_FORMAT=auto: readable lines for a person at a terminal, JSON lines for collectors and files. */
export function resolveLogFormat(format: LogFormat, stdoutIsTerminal: boolean): "json" | "pretty" {
  if (format !== "auto") return format;
  return stdoutIsTerminal ? "pretty" : "json";
}

/**
 * The process logger. `destination` defaults to stdout; `format` "pretty" renders through
 * pino-pretty in this thread (no worker), after redaction, so secrets stay out either way.
 */
export function createLogger(
  level: LogLevel,
  destination?: pino.DestinationStream,
  format: "json" | "pretty" = "json",
): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" }, base: { service: "regapi" } };
  if (format === "pretty") {
    const pretty = pinoPretty({
      colorize: destination === undefined,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname,service",
      ...(destination ? { destination } : {}),
    });
    return pino(options, pretty);
  }
  return pino(options, destination);
}
