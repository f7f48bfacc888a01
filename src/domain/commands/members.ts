import { z } from "zod";
import { clientValue } from "../../common/client-value";

// The member parsers every command schema shares, whichever transport built the command. They
// accept the leniency legacy clients need (ids as digit strings, flags as 1/0 and "true"/"false"),
// so a member means the same through REST, GraphQL and the CLI. Reuse these for new commands
// instead of writing another integer or flag check.

const DIGITS = /^\d{1,15}$/;

/** An id as sent: a non-negative JSON integer or a string of digits; anything else is null. */
export function toInteger(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === "string" && DIGITS.test(value)) return Number(value);
  return null;
}

/** What an id accepts on the wire, for generated API documents (the transform above them is the check). */
export const INTEGER_ID_JSON_SCHEMA = {
  anyOf: [
    { type: "integer", minimum: 0 },
    { type: "string", pattern: "^\\d{1,15}$" },
  ],
};

const notAnInteger = (value: unknown) => `must be an integer or a string of digits, got ${clientValue(value)}`;

/** A required id (`groupId`, `cloginId`, …). */
export const integerId = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) {
      ctx.addIssue({ code: "custom", params: { reason: "REQUIRED" }, message: "is required" });
      return z.NEVER;
    }
    const parsed = toInteger(value);
    if (parsed === null) {
      ctx.addIssue({ code: "custom", params: { reason: "NOT_AN_INTEGER" }, message: notAnInteger(value) });
      return z.NEVER;
    }
    return parsed;
  })
  .meta(INTEGER_ID_JSON_SCHEMA);

/** An optional id; absent or null gives null. */
export const optionalIntegerId = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return null;
    const parsed = toInteger(value);
    if (parsed === null) {
      ctx.addIssue({ code: "custom", params: { reason: "NOT_AN_INTEGER" }, message: notAnInteger(value) });
      return z.NEVER;
    }
    return parsed;
  })
  .meta({ anyOf: [...INTEGER_ID_JSON_SCHEMA.anyOf, { type: "null" }] });

const TRUE_VALUES: readonly unknown[] = [true, 1, "1", "true"];
const FALSE_VALUES: readonly unknown[] = [false, 0, "0", "false"];

/** A flag as sent: true/false, 1/0, "true"/"false" or "1"/"0"; anything else is null. */
export function toFlag(value: unknown): boolean | null {
  if (TRUE_VALUES.includes(value)) return true;
  if (FALSE_VALUES.includes(value)) return false;
  return null;
}

/** A boolean member with a default when absent (`submitForms`, `isExcluded`, `withArchived`, …); null is refused. */
export const flag = (fallback: boolean) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      const parsed = toFlag(value);
      if (parsed === null) {
        ctx.addIssue({
          code: "custom",
          params: { reason: "WRONG_TYPE" },
          message: `must be true or false (or 1 or 0), got ${clientValue(value)}`,
        });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({ anyOf: [{ type: "boolean" }, { enum: [0, 1, "0", "1", "true", "false"] }], default: fallback });

/** A required string member. */
export const requiredText = z.string({
  error: (issue) =>
    issue.input === undefined || issue.input === null
      ? "is required"
      : `must be a string, got ${clientValue(issue.input)}`,
});

/** An optional string member; null reads as absent. */
export const optionalText = z
  .string({ error: (issue) => `must be a string, got ${clientValue(issue.input)}` })
  .nullish()
  .transform((value) => value ?? undefined);

/** Text of at most `max` characters (code points, so an emoji counts as one), after trimming. */
export const trimmedText = (max: number) =>
  requiredText.transform((value, ctx) => {
    const text = value.trim();
    const length = [...text].length;
    if (length === 0) ctx.addIssue({ code: "custom", params: { reason: "EMPTY" }, message: "must not be empty" });
    if (length > max)
      ctx.addIssue({
        code: "custom",
        params: { reason: "TOO_LONG" },
        message: `must be at most ${max} characters, got ${length}`,
      });
    return text;
  });

/** A JSON object of member values (field values by identifier); not an array or a scalar. */
export const valueMap = z.record(z.string(), z.unknown(), { error: "must be a JSON object" });

/** A list of 1 to `max` entries, also accepting one entry alone (legacy clients send both). */
export const listOf = <Entry extends z.ZodType>(
  entry: Entry,
  names: { entry: string; entries: string; object: string },
  max: number,
) =>
  z.preprocess(
    (value) => (typeof value === "object" && value !== null && !Array.isArray(value) ? [value] : value),
    z
      .array(entry, {
        error: (issue) =>
          issue.input === undefined || issue.input === null
            ? "is required"
            : `must be ${names.object} or an array of them`,
      })
      .min(1, `must hold at least one ${names.entry}`)
      .max(max, `must hold at most ${max} ${names.entries}`),
  );
