import { z } from "zod";
import { validationFailed, type DomainError, type MemberProblem } from "../../domain/errors";
import { formatPath } from "../../shared/paths";
import { wireInteger } from "./members";

/**
 * The members every action of every endpoint carries. Checked before the action name, so a body
 * without `action` or `group_id` is a 400 VALIDATION_FAILED naming both, whatever else it holds.
 */
export const commonEnvelope = z.object({
  action: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty"),
  group_id: wireInteger,
});

/** zod issues as member problems, with paths in the wire style (`doc.email_list[0].to`). */
export function problemsOf(error: z.ZodError): MemberProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path) || "(body)", message: issue.message }));
}

/** One sentence naming every problem, then the problems one by one in `errors`. */
export function invalidRequest(problems: MemberProblem[]): DomainError {
  return validationFailed(`Invalid request: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}.`, problems);
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses a body against a schema, or throws VALIDATION_FAILED with every problem. */
export function parseEnvelope<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body);
  if (!result.success) throw invalidRequest(problemsOf(result.error));
  return result.data;
}
