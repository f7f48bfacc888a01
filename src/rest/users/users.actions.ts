import { z } from "zod";
import type { RequestContext } from "../../domain/context";
import type { FormSelection, UpdateUserOutcome, UserOutcome } from "../../domain/users/user-commands";
import { addEmails, createUser, updateUser } from "../../domain/users/users.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { optionalWireInteger, toWireInteger, wireDoc, wireFlag, wireInteger } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentMetaInfo, presentUserInfo } from "../presenters/user-envelope";
import { clientValue } from "../../shared/client-value";

// POST /reg/api2/users/ actions create, update and add_email (seed §4.1–4.3, contract §4–§7).
// Each handler maps the envelope to one domain command, makes one call and presents the legacy
// body; every rule lives in src/domain/users.

const requiredText = z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") });
const optionalText = z.string({ error: "must be a string" }).optional();
const optionalAddressList = z.string({ error: "must be a string (comma-separated addresses)" }).nullish();

/** On create, `clogin_id` is false or absent for a new person, or the id of an existing one. */
const createCloginId = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === null || value === false) return null;
  const id = toWireInteger(value);
  if (id === null) {
    ctx.addIssue({
      code: "custom",
      message: `must be false (a new user) or the clogin_id of a user of your organization, got ${clientValue(value)}`,
    });
    return z.NEVER;
  }
  return id;
});

/** `mark_forms_complete`: the string "all" or an array of ids (checked one by one by the domain). */
const markFormsComplete = z.unknown().transform((value, ctx): FormSelection | null => {
  if (value === undefined || value === null) return null;
  if (value === "all") return { all: true };
  if (Array.isArray(value)) return { formIds: value };
  ctx.addIssue({
    code: "custom",
    message: `must be an array of form ids or the string "all", got ${clientValue(value)}`,
  });
  return z.NEVER;
});

const createDoc = wireDoc.pipe(
  z
    .object({
      username: optionalText,
      password: optionalText,
      main_email: optionalText,
      first_name: optionalText,
      last_name: optionalText,
      org_name: optionalText,
    })
    .catchall(z.unknown()),
);

const emailEntry = z.object({
  from: requiredText,
  to: requiredText,
  subject: requiredText,
  body: requiredText,
  cc: optionalAddressList,
  bcc: optionalAddressList,
  admin_id: optionalWireInteger.optional(),
});

const isPlainObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

/** One email object or an array of 1–100 (the legacy docs show both). */
const emailList = z.preprocess(
  (value) => (isPlainObject(value) ? [value] : value),
  z
    .array(emailEntry, {
      error: (issue) =>
        issue.input === undefined ? "is required" : "must be an email object or an array of email objects",
    })
    .min(1, "must hold at least one email")
    .max(100, "must hold at most 100 emails"),
);

const addEmailDoc = z.object(
  { email_list: emailList },
  {
    error: (issue) =>
      issue.input === undefined || issue.input === null
        ? "is required (a JSON object with email_list)"
        : "must be a JSON object",
  },
);

const createSchema = z.object({
  action: z.literal("create"),
  group_id: wireInteger,
  clogin_id: createCloginId.optional(),
  connected_to: optionalWireInteger.optional(),
  doc: createDoc.optional(),
  submit_forms: wireFlag(true),
  disable_email_sending: wireFlag(false),
  mark_forms_complete: refusedOutsideUpdate,
});

const updateSchema = z.object({
  action: z.literal("update"),
  group_id: wireInteger,
  clogin_id: wireInteger,
  connected_to: optionalWireInteger.optional(),
  doc: wireDoc.nullish(),
  submit_forms: wireFlag(true),
  disable_email_sending: wireFlag(false),
  mark_forms_complete: markFormsComplete.optional(),
});

const addEmailSchema = z.object({
  action: z.literal("add_email"),
  group_id: wireInteger,
  clogin_id: wireInteger,
  doc: addEmailDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

/** The members every users response carries: `user_info` and `meta_info` (seed §2.4, §2.5). */
function userEnvelope(outcome: UserOutcome) {
  return { user_info: presentUserInfo(outcome.summary), meta_info: presentMetaInfo(outcome.summary) };
}

const noticesIfAny = (notices: string[]) => (notices.length > 0 ? { notices } : {});

function presentUpdate(outcome: UpdateUserOutcome): Record<string, unknown> {
  if (!outcome.markFormsComplete) {
    return {
      success: true,
      msg: "User updated.",
      system_action: ["user_updated"],
      ...noticesIfAny(outcome.notices),
      ...userEnvelope(outcome),
    };
  }
  return {
    success: true,
    msg: outcome.valuesSent ? "Information updated" : "Forms marked complete.",
    system_action: ["user_updated"],
    marked_complete: outcome.markFormsComplete.markedComplete.map(String),
    skipped: outcome.markFormsComplete.skipped.map((entry) => ({ form_id: entry.formId, reason: entry.reason })),
    notices: outcome.notices,
    ...userEnvelope(outcome),
  };
}

export const usersActions: ActionTable = {
  create: defineAction({
    schema: createSchema,
    async run(ctx: RequestContext, input) {
      const { username, password, main_email, first_name, last_name, org_name, ...values } = input.doc ?? {};
      const outcome = await createUser(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id ?? null,
        connectedTo: input.connected_to ?? null,
        username,
        password,
        mainEmail: main_email,
        firstName: first_name,
        lastName: last_name,
        orgName: org_name,
        values,
        submitForms: input.submit_forms,
        disableEmailSending: input.disable_email_sending,
      });
      return {
        success: true,
        msg: "User registered.",
        system_action: ["user_registered"],
        ...noticesIfAny(outcome.notices),
        ...userEnvelope(outcome),
      };
    },
  }),

  update: defineAction({
    schema: updateSchema,
    async run(ctx: RequestContext, input) {
      const outcome = await updateUser(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        connectedTo: input.connected_to,
        values: input.doc ?? null,
        markFormsComplete: input.mark_forms_complete ?? null,
        submitForms: input.submit_forms,
        disableEmailSending: input.disable_email_sending,
      });
      return presentUpdate(outcome);
    },
  }),

  add_email: defineAction({
    schema: addEmailSchema,
    async run(ctx: RequestContext, input) {
      const outcome = await addEmails(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        emails: input.doc.email_list.map((email) => ({
          from: email.from,
          to: email.to,
          subject: email.subject,
          body: email.body,
          cc: email.cc ?? null,
          bcc: email.bcc ?? null,
          adminId: email.admin_id ?? null,
        })),
      });
      return { success: true, msg: "Emails added successfully", ...userEnvelope(outcome) };
    },
  }),
};
