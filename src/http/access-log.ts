import type { RequestHandler } from "express";
import { currentSqlTally, withSqlTally } from "../db/sql-counter";
import type { Logger } from "./logger";
import type { AppMetrics } from "./metrics";
import { apiIdOf, PROBE_PATHS, requestLabels, type KnownActions } from "./request-labels";
import { observationOf } from "./request-observation";

declare module "express-serve-static-core" {
  interface Request {
    log: Logger;
  }
}

const PARENT_LOG = Symbol("the logger req.log is a child of");
const CHILD_LOG = Symbol("req.log once made");
interface LazyLogRequest {
  requestId: string;
  [PARENT_LOG]?: Logger;
  [CHILD_LOG]?: Logger;
}

/** Request prototypes (one per Express app) whose `log` is the getter below. */
const withLazyLog = new WeakSet<object>();

/**
 * `req.log` is made on first use: pino runs the redaction paths over a child's bindings, which
 * cost more than most of the middleware when no line is written at all. The getter sits on the
 * app's request prototype, defined once, so requests keep one shape; a request that did not pass
 * the access log has no `log`.
 */
function defineLazyLog(proto: object): void {
  Object.defineProperty(proto, "log", {
    configurable: true,
    get(this: LazyLogRequest) {
      const parent = this[PARENT_LOG];
      return parent && (this[CHILD_LOG] ??= parent.child({ requestId: this.requestId }));
    },
  });
  withLazyLog.add(proto);
}

/**
 * One JSON line per request with its id, status, duration and SQL statement count; a failed
 * request's line also names its error code, action and account, so a 4xx can be traced to a
 * client. Probe and scrape requests are logged at debug. Headers and bodies are not logged, so
 * tokens and passwords cannot leak through here. The same figures feed the metrics.
 */
export function accessLog(logger: Logger, endpoints: KnownActions, metrics?: AppMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read now: inside a mounted router req.path is relative; the query string is left out (it may hold secrets).
    const path = req.originalUrl.split("?")[0];
    (req as LazyLogRequest)[PARENT_LOG] = logger;
    const proto = Object.getPrototypeOf(req) as object;
    if (!withLazyLog.has(proto)) defineLazyLog(proto);
    withSqlTally(() => {
      const tally = currentSqlTally()!;
      res.on("finish", () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const labels = requestLabels(req, res, path, endpoints);
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
