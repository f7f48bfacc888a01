import type { Response } from "express";
import { assertUnreachable, DomainError, type DomainErrorCode } from "../domain/errors";
import { renderProblems, type PathNames } from "../http/problem-paths";
import { maskUnexpected, TransportError, type TransportErrorCode } from "../http/transport-errors";
import type { Logger } from "../http/logger";

/** HTTP status of each domain code on the legacy REST interface (contract §3). */
export function httpStatusOfDomain(code: DomainErrorCode): number {
  switch (code) {
    case "VALIDATION_FAILED":
      return 400;
    case "UNAUTHENTICATED":
    case "STALE_TIMESTAMP":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "USER_NOT_FOUND":
    case "NOT_FOUND":
      return 404;
    case "CONFLICT":
      return 409;
    default:
      return assertUnreachable(code);
  }
}

/** HTTP status of each transport code (contract §3). */
export function httpStatusOfTransport(code: TransportErrorCode): number {
  switch (code) {
    case "INVALID_JSON":
    case "UNKNOWN_ACTION":
      return 400;
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "UNSUPPORTED_MEDIA_TYPE":
      return 415;
    case "RATE_LIMITED":
      return 429;
    case "INTERNAL":
      return 500;
    case "SERVICE_UNAVAILABLE":
      return 503;
    default:
      return assertUnreachable(code);
  }
}

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
  res.status(status).json(body);
}
