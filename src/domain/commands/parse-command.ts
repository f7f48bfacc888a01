import type { z } from "zod";
import { validationFailed, type Problem } from "../errors";

/** zod issues as problems, with the command's own paths. */
export function problemsOf(error: z.ZodError): Problem[] {
  return error.issues.map((issue) => ({
    path: issue.path.filter((part): part is string | number => typeof part !== "symbol"),
    message: issue.message,
  }));
}

/**
 * Parses a command an adapter built (domain names, members as the client sent them) against the
 * command's schema, or throws one VALIDATION_FAILED carrying every problem.
 */
export function parseCommand<Schema extends z.ZodType>(schema: Schema, raw: unknown): z.output<Schema> {
  const result = schema.safeParse(raw);
  if (!result.success) throw validationFailed(problemsOf(result.error));
  return result.data;
}

/**
 * What an adapter hands a command: the command's members by their domain names, each as the
 * client sent it (the schema checks them). Misspelt member names fail to compile.
 */
export type CommandDraft<Schema extends z.ZodType> = { [Member in keyof z.output<Schema>]?: unknown };
