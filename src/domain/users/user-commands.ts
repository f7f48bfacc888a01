import type { ValueProblem } from "../forms/value-problems";
import { z } from "zod";
import {
  flag,
  INTEGER_ID_JSON_SCHEMA,
  integerId,
  listOf,
  optionalIntegerId,
  optionalText,
  requiredText,
  toInteger,
  valueMap,
} from "../commands/members";
import { parseUtcDateTime } from "../../common/dates";
import type { UserSummary } from "./user-summary";
import { clientValue } from "../../common/client-value";

// The users operations, in domain terms. Both adapters (legacy REST and GraphQL) build these
// commands and present these outcomes; neither holds a rule of its own.

/** A value for a field: text, a number, or the chosen options of a choice field. */
export type FieldInputValue = string | number | string[];

// One schema per users command. Adapters build the command in these names with members as the
// client sent them; the schema checks their shape (types, ids, flags, list sizes) before anything
// else, so every transport reports the same problems. Rules that must come after the project's
// ownership check (person data, addresses, per-call limits) are in the service, with the same paths.

/** What the other members of a users write mean (for generated API documents). */
const FIELD_VALUES =
  "Field values by field identifier (f_301_1) or mapped name (first_name): text, a number, or the chosen options of a choice field.";

/** On create, `cloginId` is false or absent for a new person, or the id of an existing one. */
const existingPersonId = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null || value === false) return null;
    const id = toInteger(value);
    if (id === null) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "NOT_AN_INTEGER" },
        message: `must be false (a new user) or the id of a user of your organization, got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return id;
  })
  .meta({ anyOf: [...INTEGER_ID_JSON_SCHEMA.anyOf, { const: false }, { type: "null" }] });

export const CreateUserCommand = z.object({
  groupId: integerId,
  /** An existing person of the caller's organization to register here too, or null for a new person. */
  cloginId: existingPersonId,
  /** Parent's id, for a child in a family project (not accepted by create; see the service). */
  connectedTo: optionalIntegerId,
  username: optionalText,
  password: optionalText,
  mainEmail: optionalText,
  firstName: optionalText,
  lastName: optionalText,
  orgName: optionalText,
  /** Other values: field identifiers or mapped names, handled as in update. */
  values: valueMap
    .nullish()
    .transform((values) => values ?? {})
    .meta({ description: FIELD_VALUES }),
  submitForms: flag(true),
  disableEmailSending: flag(false),
});
export type CreateUserCommand = z.output<typeof CreateUserCommand>;

/** A date as `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC); absent is null. */
const optionalUtcDate = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null || value === "") return null;
    const date =
      typeof value === "string" && /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(value.trim())
        ? parseUtcDateTime(value.trim())
        : null;
    if (!date) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "INVALID_DATE" },
        message: `must be a calendar date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return date;
  })
  .meta({ type: ["string", "null"], pattern: "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$" });

/**
 * users `create_child` (contract §9): create's members, with `connectedTo` (the parent) required,
 * `values` required even when empty, and the application date (default now).
 */
export const CreateChildCommand = CreateUserCommand.extend({
  connectedTo: integerId,
  values: valueMap
    .nullish()
    .transform((values, ctx) => {
      if (values === undefined || values === null) {
        ctx.addIssue({
          code: "custom",
          params: { reason: "REQUIRED" },
          message: "is required (send {} when there is nothing to set)",
        });
        return z.NEVER;
      }
      return values;
    })
    .meta({ description: FIELD_VALUES }),
  applicationDate: optionalUtcDate,
});
export type CreateChildCommand = z.output<typeof CreateChildCommand>;

/** `all`, or the ids exactly as the client sent them (numbers, digit strings or anything else). */
export type FormSelection = { all: true } | { formIds: unknown[] };

const notASelection = (value: unknown) => `must be an array of form ids or the string "all", got ${clientValue(value)}`;

/** Which forms to mark complete: "all", or a list of ids (checked one by one by the service). */
const formSelection = z
  .unknown()
  .optional()
  .transform((value, ctx): FormSelection | null => {
    if (value === undefined || value === null) return null;
    if (value === "all") return { all: true };
    if (Array.isArray(value)) return { formIds: value };
    ctx.addIssue({ code: "custom", params: { reason: "WRONG_TYPE" }, message: notASelection(value) });
    return z.NEVER;
  })
  .meta({ anyOf: [{ const: "all" }, { type: "array", items: INTEGER_ID_JSON_SCHEMA }, { type: "null" }] });

export const UpdateUserCommand = z.object({
  groupId: integerId,
  cloginId: integerId,
  /** When given it must be the user's own connection (its parent's for a child). */
  connectedTo: optionalIntegerId,
  /** The values to save, or null when the client sent none. */
  values: valueMap
    .nullish()
    .transform((values) => values ?? null)
    .meta({ description: FIELD_VALUES }),
  markFormsComplete: formSelection,
  submitForms: flag(true),
  disableEmailSending: flag(false),
});
export type UpdateUserCommand = z.output<typeof UpdateUserCommand>;

export const MAX_EMAILS_PER_CALL = 100;

const optionalAddressList = z
  .string({ error: "must be a string (comma-separated addresses)" })
  .nullish()
  .transform((value) => value ?? null);

const EmailInput = z.object(
  {
    from: requiredText,
    to: requiredText,
    subject: requiredText,
    body: requiredText,
    cc: optionalAddressList,
    bcc: optionalAddressList,
    adminId: optionalIntegerId,
  },
  { error: "must be an email object" },
);
export type EmailInput = z.output<typeof EmailInput>;

export const AddEmailsCommand = z.object({
  groupId: integerId,
  cloginId: integerId,
  /** One email or a list of 1–100 (the legacy docs show both). */
  emails: listOf(EmailInput, { entry: "email", entries: "emails", object: "an email object" }, MAX_EMAILS_PER_CALL),
});
export type AddEmailsCommand = z.output<typeof AddEmailsCommand>;

export interface SkippedForm {
  /** The id as sent, as a string. */
  formId: string;
  reason: string;
}

/** What every users operation returns: who, the refreshed summary and informational notices. */
export interface UserOutcome {
  uid: number;
  groupId: number;
  cloginId: number;
  summary: UserSummary;
  notices: string[];
  /** The sent values that were not written, and why (each one's message is also among `notices`). */
  problems: ValueProblem[];
}

export interface UpdateUserOutcome extends UserOutcome {
  /** True when the command carried `doc` values (selects the legacy message text). */
  valuesSent: boolean;
  /** Present when the command carried `mark_forms_complete`. */
  markFormsComplete: { markedComplete: number[]; skipped: SkippedForm[] } | null;
}

/**
 * `update` for someone not registered in the project, where the caller accepts it as the
 * original interface does (seed §7, case 1): nothing was written; the answer names who and where.
 */
export interface NotRegisteredUpdateOutcome {
  notRegistered: true;
  groupId: number;
  cloginId: number;
  /** The `connectedTo` sent, else the clogin id (what a registered individual would have). */
  connectedTo: number;
  valuesSent: boolean;
  /** With form ids: none marked, every id skipped with its reason. */
  markFormsComplete: { markedComplete: number[]; skipped: SkippedForm[] } | null;
  notices: string[];
}
