import type { Response } from "express";
import { assertUnreachable, DomainError, type ErrorCode } from "../domain/errors";
import type { Logger } from "../http/logger";

/** HTTP status of each error code on the legacy REST interface (contract §3). */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case "INVALID_JSON":
    case "VALIDATION_FAILED":
    case "UNKNOWN_ACTION":
      return 400;
    case "UNAUTHENTICATED":
    case "STALE_TIMESTAMP":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "USER_NOT_FOUND":
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "CONFLICT":
      return 409;
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

const DB_DOWN = /ECONNREFUSED|PROTOCOL_CONNECTION_LOST|ETIMEDOUT|Pool is closed|Connection lost|ER_CON_COUNT_ERROR/;

/** Any thrown value as a DomainError; unexpected ones are masked (the log keeps the detail). */
export function toDomainError(error: unknown, log: Logger, requestId: string): DomainError {
  if (error instanceof DomainError) return error;
  const text = error instanceof Error ? `${error.message} ${(error as { code?: string }).code ?? ""}` : String(error);
  log.error({ err: error, requestId }, "unexpected error");
  if (DB_DOWN.test(text)) return new DomainError("SERVICE_UNAVAILABLE", "The database is unavailable; try again shortly.");
  return new DomainError("INTERNAL", `Internal error; quote request id ${requestId} when reporting it.`);
}

/** The legacy error body: `{ success: false, msg, msg_type: "error", error_code, errors?, request_id, ... }`. */
export function sendLegacyError(res: Response, error: DomainError, requestId: string): void {
  const body: Record<string, unknown> = {
    success: false,
    msg: error.message,
    msg_type: "error",
    error_code: error.code,
  };
  if (error.details.problems?.length) body.errors = error.details.problems;
  Object.assign(body, error.details.extra ?? {});
  body.request_id = requestId;
  res.status(httpStatusOf(error.code)).json(body);
}
