import type { Logger } from "./logger";

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

// Driver texts that mean "the database cannot be reached", not "this request is wrong": network
// failures, a closed pool or DataSource (TypeORM, mysql2), a closed or unopenable SQLite file,
// a server shutting down, a dropped database.
const DB_DOWN =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|PROTOCOL_CONNECTION_LOST|ETIMEDOUT|Pool is closed|Connection lost|ER_CON_COUNT_ERROR|ER_SERVER_SHUTDOWN|ER_BAD_DB_ERROR|Connection is not established|database connection is not open|SQLITE_CANTOPEN|SQLITE_IOERR/;

/**
 * An unexpected thrown value, logged with its detail under the request id and masked for the
 * client: SERVICE_UNAVAILABLE when the database cannot be reached, INTERNAL otherwise.
 */
export function maskUnexpected(error: unknown, log: Logger, requestId: string): TransportError {
  const text = error instanceof Error ? `${error.message} ${(error as { code?: string }).code ?? ""}` : String(error);
  log.error({ err: error, requestId }, "unexpected error");
  if (DB_DOWN.test(text))
    return new TransportError("SERVICE_UNAVAILABLE", "The database is unavailable; try again shortly.");
  return new TransportError("INTERNAL", `Internal error; quote request id ${requestId} when reporting it.`);
}

/**
 * body-parser's failures, told apart by their documented `type`; null for anything else (then it
 * is unexpected and gets masked).
 */
export function fromBodyParserError(error: unknown, limitText: string): TransportError | null {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case "entity.parse.failed":
      return new TransportError("INVALID_JSON", "The request body is not valid JSON.");
    case "entity.too.large":
      return new TransportError("PAYLOAD_TOO_LARGE", `The request body is larger than ${limitText}.`);
    case "charset.unsupported":
      return new TransportError(
        "UNSUPPORTED_MEDIA_TYPE",
        "The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8).",
      );
    case "encoding.unsupported":
      return new TransportError("UNSUPPORTED_MEDIA_TYPE", "The request's Content-Encoding is not supported.");
    case "request.aborted":
    case "request.size.invalid":
      return new TransportError("INVALID_JSON", "The request body ended before its declared length.");
    default:
      return null;
  }
}
