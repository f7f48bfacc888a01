import { validationFailed, type MemberProblem } from "../errors";

/** Throws one VALIDATION_FAILED carrying every problem found; its message names the first. */
export function failOnProblems(problems: readonly MemberProblem[]): void {
  if (problems.length === 0) return;
  const first = problems[0].message;
  if (problems.length === 1) throw validationFailed(first, [...problems]);
  const others = problems.length - 1;
  throw validationFailed(
    `${first.replace(/\.$/, "")} (and ${others} more problem${others > 1 ? "s" : ""}, see errors).`,
    [...problems],
  );
}
