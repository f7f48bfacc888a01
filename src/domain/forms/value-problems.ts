// Why a sent value was not written (contract §4: the call goes on without it). Each refusal is
// decided once, as a ValueProblem; the free-text notice of the legacy answer is its `message`,
// so a GraphQL client reading `problems` and a REST client reading `notices` hear the same thing.

/** The stable reason codes; clients switch on them, so a code is never renamed. */
export const VALUE_PROBLEM_REASONS = [
  /** The key starts with "_": system fields are not written by clients. */
  "SYSTEM_FIELD",
  /** No field of the project has that identifier or mapped name. */
  "UNKNOWN_FIELD",
  /** The field belongs to a form the user does not have (or, for a registrant, an admin-only form). */
  "FORM_NOT_AVAILABLE",
  /** Another key of the same call names the same field; the first one was written. */
  "DUPLICATE_FIELD",
  /** The value's JSON type does not fit the field (an array for a text field, an object, …). */
  "WRONG_TYPE",
  /** Longer than the field stores. */
  "TOO_LONG",
  "NOT_A_NUMBER",
  "INVALID_EMAIL",
  "INVALID_DATE",
  "INVALID_PHONE",
  /** One answer of a choice field that is none of its options; the other answers were written. */
  "UNKNOWN_CHOICE",
  /** No sent answer is an option of the choice field; the field keeps its value. */
  "NO_MATCHING_CHOICE",
  /** A single-choice field got more than one answer. */
  "TOO_MANY_CHOICES",
] as const;

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
