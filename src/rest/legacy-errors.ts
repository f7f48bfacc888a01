import type { Response } from "express";
import { DomainError } from "../domain/errors";
import { httpStatusOfDomain, httpStatusOfTransport } from "../http/http-status";
import { retryAfterOnUnavailable } from "../http/overload";
import { renderProblems, type PathNames } from "../http/problem-paths";
import { maskUnexpected, TransportError } from "../http/transport-errors";
import type { Logger } from "../http/logger";
import { observationOf } from "../http/request-observation";
import { sendJson } from "../http/send-json";

export type LegacyFailure = DomainError | TransportError;

/** Any thrown value as a failure REST can answer with; unexpected ones are masked (the log keeps the detail). */
export function toLegacyFailure(error: unknown, log: Logger, requestId: string): LegacyFailure {
  if (error instanceof DomainError || error instanceof TransportError) return error;
  return maskUnexpected(error, log, requestId);
}

/**
 * The legacy error body: `{ success: false, msg, msg_type: "error", error_code, errors?, request_id, ... }`.
 * Problems get their wire paths from `names` (the action's), and `msg` is built from them.
 */
export function sendLegacyError(res: Response, error: LegacyFailure, requestId: string, names: PathNames = {}): void {
  const body: Record<string, unknown> = {
    success: false,
    msg: error.message,
    msg_type: "error",
    error_code: error.code,
  };
  let status: number;
  if (error instanceof DomainError) {
    status = httpStatusOfDomain(error.code);
    if (error.details.problems?.length) {
      const rendered = renderProblems(error.details.problems, { names });
      body.msg = rendered.message;
      body.errors = rendered.problems.map((problem) => ({ path: problem.path || "(body)", message: problem.message }));
    }
    Object.assign(body, error.details.extra ?? {});
  } else {
    status = httpStatusOfTransport(error.code);
  }
  body.request_id = requestId;
  observationOf(res).errorCode = error.code;
  retryAfterOnUnavailable(res, error.code);
  sendJson(res, status, body);
}
