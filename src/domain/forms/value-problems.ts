import type { ProblemReason } from "../problems";

// Why a sent value was not written (contract §4: the call goes on without it). Each refusal is
// decided once, as a ValueProblem; the free-text notice of the legacy answer is its `message`,
// so a GraphQL client reading `problems` and a REST client reading `notices` hear the same thing.

/** The reasons a value problem can have (the shared list is PROBLEM_REASONS in ../problems). */
export const VALUE_PROBLEM_REASONS = [
  "SYSTEM_FIELD",
  "UNKNOWN_FIELD",
  "FORM_NOT_AVAILABLE",
  "DUPLICATE_FIELD",
  "WRONG_TYPE",
  "TOO_LONG",
  "NOT_A_NUMBER",
  "INVALID_EMAIL",
  "INVALID_DATE",
  "INVALID_PHONE",
  "UNKNOWN_CHOICE",
  "NO_MATCHING_CHOICE",
  "TOO_MANY_CHOICES",
] as const satisfies readonly ProblemReason[];

export type ValueProblemReason = (typeof VALUE_PROBLEM_REASONS)[number];

export interface ValueProblem {
  /** The key as the client sent it (field identifier, mapped name or person key). */
  key: string;
  /** The value as sent; for UNKNOWN_CHOICE the one answer that was dropped. Uncapped: transports cap it. */
  value: unknown;
  reason: ValueProblemReason;
  /** The human sentence, also the legacy notice. */
  message: string;
}

export const valueProblem = (
  key: string,
  value: unknown,
  reason: ValueProblemReason,
  message: string,
): ValueProblem => ({ key, value, reason, message });

/** The notices a list of problems reads as, in order: one per problem. */
export const noticesOf = (problems: readonly ValueProblem[]): string[] => problems.map((problem) => problem.message);
