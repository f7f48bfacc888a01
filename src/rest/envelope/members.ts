import { z } from "zod";

// Envelope members of the legacy wire format. Members that belong to a domain command (ids,
// flags, texts) are passed through as sent: the command's schema checks them.

/** `doc` as a JSON object; an empty array counts as an empty object (the legacy docs call it an array). */
export const wireDoc = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (Array.isArray(value) && value.length === 0) return {} as Record<string, unknown>;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return z.NEVER;
    }
    return value as Record<string, unknown>;
  });

/** `doc` where the action requires one (statuses `create`, projects `get_project_list`). */
export const requiredWireDoc = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
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

/** A member passed to the domain command as sent (absent is fine); the command's schema checks it. */
export const asSent = z.unknown().optional();
