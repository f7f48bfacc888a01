import type { Response } from "express";
import { assertUnreachable, DomainError, type ErrorCode } from "../domain/errors";
import { connectionFailureCause, DATABASE_FAILURE_MESSAGES, databaseFailureOf } from "../db/database-failure";
import type { Logger } from "../http/logger";
import { retryAfterOnUnavailable } from "../http/overload";

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

/** Any thrown value as a DomainError; unexpected ones are masked (the log keeps the detail). */
export function toDomainError(error: unknown, log: Logger, requestId: string): DomainError {
  if (error instanceof DomainError) return error;
  const failure = databaseFailureOf(error);
  if (failure) {
    log.warn({ requestId, failure, cause: connectionFailureCause(error) }, "database trouble; answered 503");
    return new DomainError("SERVICE_UNAVAILABLE", DATABASE_FAILURE_MESSAGES[failure]);
  }
  log.error({ err: error, requestId }, "unexpected error");
  return new DomainError("INTERNAL", `Internal error; quote request id ${requestId} when reporting it.`);
}

/**
 * body-parser's failures, told apart by their documented `type`, as coded errors; null for
 * anything else (then it is unexpected and gets masked).
 */
export function fromBodyParserError(error: unknown, limitText: string): DomainError | null {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case "entity.parse.failed":
      return new DomainError("INVALID_JSON", "The request body is not valid JSON.");
    case "entity.too.large":
      return new DomainError("PAYLOAD_TOO_LARGE", `The request body is larger than ${limitText}.`);
    case "charset.unsupported":
      return new DomainError(
        "UNSUPPORTED_MEDIA_TYPE",
        "The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8).",
      );
    case "encoding.unsupported":
      return new DomainError("UNSUPPORTED_MEDIA_TYPE", "The request's Content-Encoding is not supported.");
    case "request.aborted":
    case "request.size.invalid":
      return new DomainError("INVALID_JSON", "The request body ended before its declared length.");
    default:
      return null;
  }
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
  retryAfterOnUnavailable(res, error.code);
  res.status(httpStatusOf(error.code)).json(body);
}
