import { z } from "zod";
import { clientValue } from "../../shared/client-value";

// Envelope members shared by every action. Integer members accept JSON integers or strings of
// digits (legacy clients often send strings, and the API itself returns ids as strings).

const DIGITS = /^\d{1,15}$/;

export function toWireInteger(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === "string" && DIGITS.test(value)) return Number(value);
  return null;
}

/** A required integer member (`group_id`, `clogin_id`, `admin_id`, …). */
export const wireInteger = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === null) {
    ctx.addIssue({ code: "custom", message: "is required" });
    return z.NEVER;
  }
  const parsed = toWireInteger(value);
  if (parsed === null) {
    ctx.addIssue({ code: "custom", message: `must be an integer or a string of digits, got ${clientValue(value)}` });
    return z.NEVER;
  }
  return parsed;
});

/** An optional integer member; absent or null gives null. */
export const optionalWireInteger = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === null) return null;
  const parsed = toWireInteger(value);
  if (parsed === null) {
    ctx.addIssue({ code: "custom", message: `must be an integer or a string of digits, got ${clientValue(value)}` });
    return z.NEVER;
  }
  return parsed;
});

/** A boolean flag with a default (`submit_forms`, `disable_email_sending`, `with_archived`, …). */
export const wireFlag = (fallback: boolean) =>
  z
    .boolean({ error: (issue) => (issue.input === undefined ? "is required" : "must be true or false") })
    .optional()
    .transform((value) => value ?? fallback);

/** `doc` as a JSON object; an empty array counts as an empty object (the legacy docs call it an array). */
export const wireDoc = z.unknown().transform((value, ctx) => {
  if (Array.isArray(value) && value.length === 0) return {} as Record<string, unknown>;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: "custom", message: "must be a JSON object" });
    return z.NEVER;
  }
  return value as Record<string, unknown>;
});

/** `doc` where the action requires one (statuses `create`, projects `get_project_list`). */
export const requiredWireDoc = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === null) {
    ctx.addIssue({ code: "custom", message: "is required (a JSON object)" });
    return z.NEVER;
  }
  if (Array.isArray(value) && value.length === 0) return {} as Record<string, unknown>;
  if (typeof value !== "object" || Array.isArray(value)) {
    ctx.addIssue({ code: "custom", message: "must be a JSON object" });
    return z.NEVER;
  }
  return value as Record<string, unknown>;
});
