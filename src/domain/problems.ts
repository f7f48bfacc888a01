/** Where a problem is, in the command's own names: `["emails", 1, "to"]`, `["name"]`. */
export type ProblemPath = readonly (string | number)[];

/**
 * One problem with one member of a command. The message never repeats the path ("must not be
 * empty", "holds an invalid address: \"x\""): each transport renders the path in its own names.
 */
export interface Problem {
  path: ProblemPath;
  message: string;
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
