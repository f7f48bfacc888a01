import type { RequestHandler } from "express";
import { currentSqlTally, withSqlTally } from "../db/sql-counter";
import type { Logger } from "./logger";
import type { AppMetrics } from "./metrics";
import { apiIdOf, PROBE_PATHS, requestLabels } from "./request-labels";
import { observationOf } from "./request-observation";

declare module "express-serve-static-core" {
  interface Request {
    log: Logger;
  }
}

/**
 * One JSON line per request with its id, status, duration and SQL statement count; a failed
 * request's line also names its error code, action and account, so a 4xx can be traced to a
 * client. Probe and scrape requests are logged at debug. Headers and bodies are not logged, so
 * tokens and passwords cannot leak through here. The same figures feed the metrics.
 */
export function accessLog(logger: Logger, metrics?: AppMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read now: inside a mounted router req.path is relative; the query string is left out (it may hold secrets).
    const path = req.originalUrl.split("?")[0];
    // The child logger is made on first use: pino runs the redaction paths over its bindings,
    // which costs more than many requests' whole middleware when no line is written at all.
    let log: Logger | undefined;
    Object.defineProperty(req, "log", {
      configurable: true,
      enumerable: true,
      get: () => (log ??= logger.child({ requestId: req.requestId })),
    });
    withSqlTally(() => {
      const tally = currentSqlTally()!;
      res.on("finish", () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const labels = requestLabels(req, res, path);
        metrics?.observeRequest(labels, res.statusCode, seconds, tally.statements);
        const failed = res.statusCode >= 400;
        const level = PROBE_PATHS.includes(path) ? "debug" : res.statusCode >= 500 ? "error" : failed ? "warn" : "info";
        // A child has its parent's level: below it, the line (and req.ip's proxy walk) is not built.
        if (!logger.isLevelEnabled(level)) return;
        req.log[level](
          {
            method: req.method,
            path,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
            sqlStatements: tally.statements,
            clientIp: req.ip ?? null,
            ...(failed
              ? {
                  error_code: observationOf(res).errorCode ?? null,
                  action: labels.action,
                  api_id: apiIdOf(req) ?? null,
                }
              : {}),
          },
          "request",
        );
      });
      next();
    });
  };
}
