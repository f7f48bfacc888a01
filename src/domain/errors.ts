import { summarizeProblems, formatPath, type Problem } from "./problems";

export type { Problem, ProblemPath } from "./problems";

/**
 * The failures the domain itself raises. Transport failures (bad JSON, wrong method, rate limits,
 * masked internal errors, …) are not here: they live in src/http/transport-errors.ts. Each
 * transport maps these codes once, exhaustively (REST: HTTP status; GraphQL: extensions.code).
 */
export const DOMAIN_ERROR_CODES = [
  "VALIDATION_FAILED",
  "UNAUTHENTICATED",
  "STALE_TIMESTAMP",
  "FORBIDDEN",
  "USER_NOT_FOUND",
  "NOT_FOUND",
  "CONFLICT",
  "CURSOR_EXPIRED",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorDetails {
  /** Per-member problems, with paths in the command's own vocabulary (`["emails", 1, "to"]`). */
  problems?: Problem[];
  /** Extra members for the client, e.g. the existing `status_id` of a CONFLICT. */
  extra?: Record<string, unknown>;
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: DomainErrorDetails = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/**
 * A failure that carries problems; its message names them with domain paths (what the CLI and the
 * log show). Transports rebuild the message from the problems rendered with their own paths.
 */
export const withProblems = (code: DomainErrorCode, problems: Problem[]) =>
  new DomainError(
    code,
    summarizeProblems(problems.map((problem) => ({ path: formatPath(problem.path), message: problem.message }))),
    { problems },
  );

export const validationFailed = (problems: Problem[]) => withProblems("VALIDATION_FAILED", problems);

/** Throws one VALIDATION_FAILED carrying every problem; does nothing when there is none. */
export function failOnProblems(problems: readonly Problem[]): void {
  if (problems.length > 0) throw validationFailed([...problems]);
}

/** A feed cursor from before what retention pruned: events after it may be gone (docs/event-feed.md). */
export const cursorExpired = (message: string) => new DomainError("CURSOR_EXPIRED", message);

export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);

export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new DomainError("CONFLICT", message, { extra });

export const userNotFound = (cloginId: number, groupId: number) =>
  new DomainError("USER_NOT_FOUND", `User ${cloginId} is not registered in project ${groupId}.`);

/** Used by exhaustive switches: a new code fails to compile until every transport maps it. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}
