import { assertUnreachable, type DomainErrorCode } from "../domain/errors";
import type { TransportErrorCode } from "./transport-errors";

/** HTTP status of each domain code (contract §3): the legacy REST answers, and GraphQL's failures of a whole request. */
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
    case "CURSOR_EXPIRED":
      return 410;
    default:
      return assertUnreachable(code);
  }
}

/** HTTP status of each transport code (contract §3). */
export function httpStatusOfTransport(code: TransportErrorCode): number {
  switch (code) {
    case "INVALID_JSON":
    case "UNKNOWN_ACTION":
    case "IDEMPOTENCY_KEY_INVALID":
    case "CONSISTENCY_INVALID":
      return 400;
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "IDEMPOTENCY_KEY_REUSED":
    case "IDEMPOTENCY_KEY_IN_PROGRESS":
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
