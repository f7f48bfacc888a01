import { connectionFailureCause, DATABASE_FAILURE_MESSAGES, databaseFailureOf } from "../db/database-failure";
import type { Logger } from "./logger";
import { BODY_LIMIT_TEXT, BODY_NOT_UTF8 } from "./body-hygiene";

/**
 * Failures of the transport, not of the domain: the request could not be read, was refused
 * before any domain call, or failed unexpectedly (masked). Both transports use these; REST adds
 * UNKNOWN_ACTION and the route NOT_FOUND; GraphQL answers those itself.
 */
export const TRANSPORT_ERROR_CODES = [
  "INVALID_JSON",
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
  "UNKNOWN_ACTION",
  "NOT_FOUND",
  "RATE_LIMITED",
  "INTERNAL",
  "SERVICE_UNAVAILABLE",
  "IDEMPOTENCY_KEY_INVALID",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_KEY_IN_PROGRESS",
  "CONSISTENCY_INVALID",
] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TransportError";
  }
}

/**
 * An unexpected thrown value, masked for the client. Database trouble (unreachable, or saturated:
 * a full pool queue, a statement or acquire timeout) is SERVICE_UNAVAILABLE, answered 503 with
 * Retry-After by both transports and logged as a warning with its cause; anything else is
 * INTERNAL, logged with its detail under the request id.
 */
export function maskUnexpected(error: unknown, log: Logger, requestId: string): TransportError {
  const failure = databaseFailureOf(error);
  if (failure) {
    log.warn({ requestId, failure, cause: connectionFailureCause(error) }, "database trouble; answered 503");
    return new TransportError("SERVICE_UNAVAILABLE", DATABASE_FAILURE_MESSAGES[failure]);
  }
  log.error({ err: error, requestId }, "unexpected error");
  return new TransportError("INTERNAL", `Internal error; quote request id ${requestId} when reporting it.`);
}

/**
 * Body-reading failures, told apart by body-parser's documented `type` and those of
 * `jsonBody` (body-hygiene.ts); null for anything else (then it is unexpected and gets masked).
 */
export function fromBodyParserError(error: unknown): TransportError | null {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case "entity.parse.failed":
      return new TransportError("INVALID_JSON", "The request body is not valid JSON.");
    case "entity.too.deep":
      return new TransportError("INVALID_JSON", String((error as { message?: unknown }).message));
    case "entity.too.large":
      return new TransportError("PAYLOAD_TOO_LARGE", `The request body is larger than ${BODY_LIMIT_TEXT}.`);
    case "charset.unsupported":
    case "entity.not.utf8":
      return new TransportError("UNSUPPORTED_MEDIA_TYPE", BODY_NOT_UTF8);
    case "encoding.unsupported":
      return new TransportError("UNSUPPORTED_MEDIA_TYPE", "The request's Content-Encoding is not supported.");
    case "request.aborted":
    case "request.size.invalid":
      return new TransportError("INVALID_JSON", "The request body ended before its declared length.");
    default:
      return null;
  }
}
