import { z } from "zod";
import { flag, INTEGER_ID_JSON_SCHEMA, integerId, toInteger } from "../commands/members";
import { clientValue } from "../../common/client-value";
import { parseUtcDateTime } from "../../common/dates";

// The commands of the read path and the registrant session (contract §10–§12, §18), one schema
// each; adapters build them from the members as sent.

export const LoginCommand = z.object({ groupId: integerId, cloginId: integerId });
export type LoginCommand = z.output<typeof LoginCommand>;

export const RedeemLoginTokenCommand = z.object({
  loginToken: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .min(1, "is required")
    .max(200, "is not a login token"),
});
export type RedeemLoginTokenCommand = z.output<typeof RedeemLoginTokenCommand>;

/** What to read: key → true (or, for `_usercart`, an options object). */
const selectors = z
  .record(z.string(), z.unknown(), { error: "must be a JSON object" })
  .nullish()
  .transform((value) => value ?? {})
  .meta({
    description:
      "What to read: a field identifier or mapped name (or _allfields, _userforms, _usercart, _userpayments, _family, …) → true; _usercart may take an options object.",
  });

export const UserInfoCommand = z.object({ groupId: integerId, cloginId: integerId, selectors });
export type UserInfoCommand = z.output<typeof UserInfoCommand>;

/** A zero-based position in the list: an integer ≥ 0 or a string of digits; default 0. */
const startingPosition = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return 0;
    const parsed = toInteger(value);
    if (parsed === null) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "NOT_AN_INTEGER" },
        message: `must be an integer of 0 or more (a zero-based position in the list), got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return parsed;
  })
  .meta({ anyOf: [...INTEGER_ID_JSON_SCHEMA.anyOf, { type: "null" }], default: 0 });

/** A point in time as `YYYY-MM-DD HH:MM:SS` (UTC); absent: no change filter. */
export const modifiedSince = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return null;
    const date =
      typeof value === "string" && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? parseUtcDateTime(value) : null;
    if (!date) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "INVALID_DATE" },
        message: `must be a date and time as YYYY-MM-DD HH:MM:SS (UTC), got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return date;
  })
  .meta({ type: ["string", "null"], pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$" });

export const UserListCommand = z
  .object({
    groupId: integerId,
    withExcluded: flag(false),
    onlyExcluded: flag(false),
    onlyParents: flag(false),
    onlyChildren: flag(false),
    returnFamilies: flag(false),
    startingPosition,
    /** Only registrations changed at or after this time (ours, not the original API's). */
    modifiedSince,
    selectors,
  })
  .superRefine((command, ctx) => {
    if (command.modifiedSince && command.returnFamilies) {
      ctx.addIssue({
        code: "custom",
        path: ["returnFamilies"],
        params: { reason: "CONFLICTING_MEMBERS" },
        message: "cannot be combined with modified_since (changed children are listed on their own)",
      });
    }
    if (command.onlyParents && command.onlyChildren) {
      ctx.addIssue({
        code: "custom",
        path: ["onlyChildren"],
        params: { reason: "CONFLICTING_MEMBERS" },
        message: "cannot be combined with the parents-only option",
      });
    }
  });
export type UserListCommand = z.output<typeof UserListCommand>;
