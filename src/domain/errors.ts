/**
 * Every expected failure of the domain carries one of these codes. Each transport maps them once,
 * exhaustively (REST: HTTP status + legacy body; GraphQL: extensions.code).
 */
export const ERROR_CODES = [
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "UNKNOWN_ACTION",
  "UNAUTHENTICATED",
  "STALE_TIMESTAMP",
  "FORBIDDEN",
  "USER_NOT_FOUND",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "INTERNAL",
  "SERVICE_UNAVAILABLE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One problem with one member of the input, e.g. `doc.email_list[0].to`. */
export interface MemberProblem {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { problems?: MemberProblem[]; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const validationFailed = (message: string, problems?: MemberProblem[]) =>
  new DomainError("VALIDATION_FAILED", message, { problems });

export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);

export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new DomainError("CONFLICT", message, { extra });

export const userNotFound = (cloginId: number, groupId: number) =>
  new DomainError("USER_NOT_FOUND", `User ${cloginId} is not registered in project ${groupId}.`);

/** Used by exhaustive switches: a new code fails to compile until every transport maps it. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}
