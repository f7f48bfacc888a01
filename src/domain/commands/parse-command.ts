import type { z } from "zod";
import { validationFailed, type Problem } from "../errors";
import { PROBLEM_REASONS, type ProblemReason } from "../problems";

/** Members whose sent value a problem never carries (an answer would echo it). */
const SECRET_MEMBERS: ReadonlySet<string> = new Set(["password"]);

const isReason = (value: unknown): value is ProblemReason =>
  typeof value === "string" && Object.hasOwn(PROBLEM_REASONS, value);

/**
 * The reason code of a zod issue: a check written for a command says its own (`params.reason`
 * of a custom issue); zod's built-in checks are named by what they check.
 */
function reasonOf(issue: z.core.$ZodIssue): ProblemReason {
  switch (issue.code) {
    case "custom":
      return isReason(issue.params?.reason) ? issue.params.reason : "INVALID_VALUE";
    case "invalid_type":
      return issue.input === undefined || issue.input === null ? "REQUIRED" : "WRONG_TYPE";
    case "too_big":
      if (issue.origin === "string") return "TOO_LONG";
      return issue.origin === "array" || issue.origin === "set" ? "TOO_MANY_ITEMS" : "OUT_OF_RANGE";
    case "too_small":
      if (issue.origin === "string") return Number(issue.minimum) <= 1 ? "EMPTY" : "TOO_SHORT";
      return issue.origin === "array" || issue.origin === "set" ? "TOO_FEW_ITEMS" : "OUT_OF_RANGE";
    case "invalid_format":
      if (issue.format === "email") return "INVALID_EMAIL";
      return issue.format === "date" || issue.format === "datetime" ? "INVALID_DATE" : "INVALID_FORMAT";
    case "invalid_value":
      return "NOT_ALLOWED";
    case "unrecognized_keys":
      return "UNKNOWN_MEMBER";
    default:
      return "INVALID_VALUE";
  }
}

/** zod issues as problems, with the command's own paths. */
export function problemsOf(error: z.ZodError): Problem[] {
  return error.issues.map((issue) => {
    const path = issue.path.filter((part): part is string | number => typeof part !== "symbol");
    const secret = path.some((part) => typeof part === "string" && SECRET_MEMBERS.has(part));
    const problem: Problem = { path, message: issue.message, reason: reasonOf(issue) };
    if (!secret && issue.input !== undefined) problem.value = issue.input;
    return problem;
  });
}

/**
 * Parses a command an adapter built (domain names, members as the client sent them) against the
 * command's schema, or throws one VALIDATION_FAILED carrying every problem.
 */
export function parseCommand<Schema extends z.ZodType>(schema: Schema, raw: unknown): z.output<Schema> {
  const result = schema.safeParse(raw, { reportInput: true });
  if (!result.success) throw validationFailed(problemsOf(result.error));
  return result.data;
}

/**
 * What an adapter hands a command: the command's members by their domain names, each as the
 * client sent it (the schema checks them). Misspelt member names fail to compile.
 */
export type CommandDraft<Schema extends z.ZodType> = { [Member in keyof z.output<Schema>]?: unknown };
