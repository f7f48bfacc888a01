import type { RequestHandler } from "express";
import { currentSqlTally, withSqlTally } from "../db/sql-counter";
import type { Logger } from "./logger";

declare module "express-serve-static-core" {
  interface Request {
    log: Logger;
  }
}

/**
 * One JSON line per request with its id, status, duration and SQL statement count. Headers and
 * bodies are not logged, so tokens and passwords cannot leak through here.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Read now: inside a mounted router req.path is relative; the query string is left out (it may hold secrets).
    const path = req.originalUrl.split("?")[0];
    req.log = logger.child({ requestId: req.requestId });
    withSqlTally(() => {
      const tally = currentSqlTally()!;
      res.on("finish", () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const level = res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info";
        req.log[level](
          {
            method: req.method,
            path,
            status: res.statusCode,
            ms: Math.round(ms * 10) / 10,
            sqlStatements: tally.statements,
          },
          "request",
        );
      });
      next();
    });
  };
}
