/**
 * Why a member or a sent value was refused: the one list of stable codes for both kinds of
 * problem (a value left out of a write, contract §4, and invalid input that fails the call), each
 * with the sentence the schema shows for it. Clients switch on them, so a code is never renamed;
 * new ones are added at the end.
 */
export const PROBLEM_REASONS = {
  SYSTEM_FIELD: 'The key starts with "_": system fields are not written by clients.',
  UNKNOWN_FIELD: "No field of the project has that identifier or mapped name.",
  FORM_NOT_AVAILABLE: "The field belongs to a form the user does not have (or, for a registrant, an admin-only form).",
  DUPLICATE_FIELD: "Another key of the same call names the same field; the first one was written.",
  WRONG_TYPE:
    "The value's JSON type does not fit (an array for a text field, a number for a string member, an object, …).",
  TOO_LONG: "Longer than the field or member stores.",
  NOT_A_NUMBER: "Not a number (a number field).",
  INVALID_EMAIL: "Not an email address (or a list of them, for to/cc/bcc).",
  INVALID_DATE: "Not a date in the format the member or field takes, or no such calendar day.",
  INVALID_PHONE: "Not a phone number (a phone field).",
  UNKNOWN_CHOICE: "One answer of a choice field that is none of its options; the other answers were written.",
  NO_MATCHING_CHOICE: "No sent answer is an option of the choice field; the field keeps its value.",
  TOO_MANY_CHOICES: "A single-choice field got more than one answer.",
  REQUIRED: "A required member is absent (or null).",
  EMPTY: "A member that must hold text is empty (after trimming).",
  TOO_SHORT: "Shorter than the member needs (a password).",
  OUT_OF_RANGE: "A number or a date outside the member's range.",
  NOT_AN_INTEGER: "Not an integer id (a JSON integer or a string of digits).",
  INVALID_FORMAT: "Not in the member's format (a colour, an amount, a URL, …).",
  NOT_ALLOWED:
    "Not accepted here: none of the values the member accepts (an event type, a scope), or a member this kind of object does not take.",
  TOO_MANY_ITEMS: "A list with more entries than the member takes.",
  TOO_FEW_ITEMS: "A list with fewer entries than the member needs (an empty list).",
  UNKNOWN_MEMBER: "A member the command does not take.",
  CONFLICTING_MEMBERS: "Members that exclude each other were sent together, or neither of two that need one.",
  INVALID_ID: "An id or cursor this API did not issue (or one of another list).",
  NOT_AVAILABLE: "Names something that does not exist or cannot be used here (a product, a form, a parent, …).",
  INVALID_VALUE: "Breaks another rule of the command; the message says which.",
} as const;

export type ProblemReason = keyof typeof PROBLEM_REASONS;

/** Where a problem is, in the command's own names: `["emails", 1, "to"]`, `["name"]`. */
export type ProblemPath = readonly (string | number)[];

/**
 * One problem with one member of a command. The message never repeats the path ("must not be
 * empty", "holds an invalid address: \"x\""): each transport renders the path in its own names.
 */
export interface Problem {
  path: ProblemPath;
  message: string;
  reason: ProblemReason;
  /** The value as sent, when the check had it (uncapped: transports cap it); never a secret member's. */
  value?: unknown;
}

/** A problem whose path a transport has rendered, e.g. `doc.email_list[1].to` or `input.emails[1].to`. */
export interface RenderedProblem {
  path: string;
  message: string;
}

/** `["doc", "email_list", 0, "to"]` → `doc.email_list[0].to`, the path style of every error we report. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`))
    .join("");
}

/**
 * The one top-level message of a failure with problems, on every transport: the first problem
 * (`<path> <message>`), then how many more there are.
 */
export function summarizeProblems(problems: readonly RenderedProblem[]): string {
  if (problems.length === 0) return "Invalid input.";
  const [first] = problems;
  const head = first.path ? `${first.path} ${first.message}` : first.message;
  const others = problems.length - 1;
  if (others === 0) return `${head}.`;
  return `${head} (and ${others} more problem${others > 1 ? "s" : ""}, see errors).`;
}
