import { z } from "zod";
import type { RequestContext } from "../../domain/context";
import {
  AddEmailsCommand,
  CreateChildCommand,
  CreateUserCommand,
  UpdateUserCommand,
  type NotRegisteredUpdateOutcome,
  type UpdateUserOutcome,
  type UserOutcome,
} from "../../domain/users/user-commands";
import { AddProductCommand, addProducts } from "../../domain/carts/add-product";
import { loginUser } from "../../domain/sessions/registrant-sessions";
import { LoginCommand } from "../../domain/users/read-commands";
import { SetStatusCommand, setUserStatus } from "../../domain/users/set-status";
import { addEmails, createChild, createUser, updateUserIfRegistered } from "../../domain/users/users.service";
import { formatUtcDateTime } from "../../common/dates";
import type { PathNames } from "../../http/problem-paths";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { isJsonObject } from "../envelope/envelope";
import { asSent, wireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentMetaInfo, presentUserInfo } from "../presenters/user-envelope";
import { userReadActions } from "./users-read.actions";

// POST /reg/api2/users/ actions create, update and add_email (contract §4–§7).
// Each handler maps the envelope to one domain command, makes one call and presents the legacy
// body; the command's schema and the service (src/domain/users) hold every rule.

/** The wire names of the members the users commands share. */
const USER_PATHS: PathNames = {
  groupId: "group_id",
  cloginId: "clogin_id",
  connectedTo: "connected_to",
  values: "doc",
  markFormsComplete: "mark_forms_complete",
  submitForms: "submit_forms",
  disableEmailSending: "disable_email_sending",
};

const CREATE_PATHS: PathNames = {
  ...USER_PATHS,
  username: "doc.username",
  password: "doc.password",
  mainEmail: "doc.main_email",
  firstName: "doc.first_name",
  lastName: "doc.last_name",
  orgName: "doc.org_name",
};

const ADD_EMAIL_PATHS: PathNames = { ...USER_PATHS, emails: "doc.email_list", adminId: "admin_id" };

const createSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  connected_to: asSent,
  doc: wireDoc.optional(),
  submit_forms: asSent,
  disable_email_sending: asSent,
  mark_forms_complete: refusedOutsideUpdate,
});

const updateSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  connected_to: asSent,
  doc: wireDoc.nullish(),
  submit_forms: asSent,
  disable_email_sending: asSent,
  mark_forms_complete: asSent,
});

const addEmailSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  doc: z.object(
    { email_list: asSent },
    {
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? "is required (a JSON object with email_list)"
          : "must be a JSON object",
    },
  ),
  mark_forms_complete: refusedOutsideUpdate,
});

const createChildSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  connected_to: asSent,
  doc: asSent,
  submit_forms: asSent,
  disable_email_sending: asSent,
  mark_forms_complete: refusedOutsideUpdate,
});

/** `doc` absent, `{}` or `[]`: set_status and add_product carry their members at the top level. */
const emptyDoc = z
  .unknown()
  .optional()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return;
    const empty = Array.isArray(value)
      ? value.length === 0
      : typeof value === "object" && Object.keys(value as object).length === 0;
    if (!empty)
      ctx.addIssue({ code: "custom", message: "must be absent, {} or [] (this action takes no doc members)" });
  })
  .meta({
    description: "This action takes no doc members: absent, {} or [].",
    anyOf: [{ type: "object", maxProperties: 0 }, { type: "array", maxItems: 0 }, { type: "null" }],
  });

const setStatusSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  status_id: asSent,
  doc: emptyDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

const addProductSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  product_list: asSent,
  doc: emptyDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

const CREATE_CHILD_PATHS: PathNames = { ...CREATE_PATHS, applicationDate: "doc._application_date" };
const SET_STATUS_PATHS: PathNames = { ...USER_PATHS, statusId: "status_id" };
const ADD_PRODUCT_PATHS: PathNames = {
  ...USER_PATHS,
  productList: "product_list",
  pId: "p_id",
  productRemark: "product_remark",
  recurringStartDate: "recurring_start_date",
  dateStructure: "date_structure",
};

/** One wire product_list entry in the command's names; anything else is passed on for the command to refuse. */
function productEntryDraft(entry: unknown): unknown {
  if (!isJsonObject(entry)) return entry;
  const { p_id, product_remark, recurring_start_date, date_structure, ...members } = entry;
  return {
    ...members,
    pId: p_id,
    productRemark: product_remark,
    recurringStartDate: recurring_start_date,
    dateStructure: date_structure,
  };
}

const loginSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  doc: emptyDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

/** One wire email entry in the command's names; anything else is passed on for the schema to refuse. */
function emailDraft(entry: unknown): unknown {
  if (!isJsonObject(entry)) return entry;
  const { admin_id, ...members } = entry;
  return { ...members, adminId: admin_id };
}

/** The members every users response carries: `user_info` and `meta_info` (contract §6). */
function userEnvelope(outcome: UserOutcome) {
  return { user_info: presentUserInfo(outcome.summary), meta_info: presentMetaInfo(outcome.summary) };
}

const noticesIfAny = (notices: string[]) => (notices.length > 0 ? { notices } : {});

/**
 * The update answer. For someone not registered in the project (seed §7 case 1) it is the same
 * body with nothing done: no system action, `user_info` as sent and no `meta_info` to show.
 */
function presentUpdate(outcome: UpdateUserOutcome | NotRegisteredUpdateOutcome): Record<string, unknown> {
  const envelope =
    "notRegistered" in outcome
      ? {
          user_info: {
            clogin_id: String(outcome.cloginId),
            group_id: String(outcome.groupId),
            connected_to: String(outcome.connectedTo),
          },
          meta_info: null,
        }
      : userEnvelope(outcome);
  const systemAction = "notRegistered" in outcome ? [] : ["user_updated"];
  if (!outcome.markFormsComplete) {
    return {
      success: true,
      msg: "User updated.",
      system_action: systemAction,
      ...noticesIfAny(outcome.notices),
      ...envelope,
    };
  }
  return {
    success: true,
    msg: outcome.valuesSent ? "Information updated" : "Forms marked complete.",
    system_action: systemAction,
    marked_complete: outcome.markFormsComplete.markedComplete.map(String),
    skipped: outcome.markFormsComplete.skipped.map((entry) => ({ form_id: entry.formId, reason: entry.reason })),
    notices: outcome.notices,
    ...envelope,
  };
}

/** The person members of a create or create_child `doc`, in the command's names; every other key is a value. */
function personDraft(doc: Record<string, unknown>) {
  const { username, password, main_email, first_name, last_name, org_name, ...values } = doc;
  return {
    username,
    password,
    mainEmail: main_email,
    firstName: first_name,
    lastName: last_name,
    orgName: org_name,
    values,
  };
}

/** The answer of create and create_child. */
function registered(msg: string, systemAction: string, outcome: UserOutcome) {
  return {
    success: true,
    msg,
    system_action: [systemAction],
    ...noticesIfAny(outcome.notices),
    ...userEnvelope(outcome),
  };
}

export const usersActions: ActionTable = {
  create: defineAction({
    schema: createSchema,
    command: CreateUserCommand,
    problemPaths: CREATE_PATHS,
    async run(ctx: RequestContext, input) {
      const outcome = await createUser(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        connectedTo: input.connected_to,
        ...personDraft(input.doc ?? {}),
        submitForms: input.submit_forms,
        disableEmailSending: input.disable_email_sending,
      });
      return registered("User registered.", "user_registered", outcome);
    },
  }),

  update: defineAction({
    schema: updateSchema,
    command: UpdateUserCommand,
    problemPaths: USER_PATHS,
    async run(ctx: RequestContext, input) {
      const outcome = await updateUserIfRegistered(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        connectedTo: input.connected_to,
        values: input.doc,
        markFormsComplete: input.mark_forms_complete,
        submitForms: input.submit_forms,
        disableEmailSending: input.disable_email_sending,
      });
      return presentUpdate(outcome);
    },
  }),

  create_child: defineAction({
    schema: createChildSchema,
    command: CreateChildCommand,
    problemPaths: CREATE_CHILD_PATHS,
    async run(ctx: RequestContext, input) {
      const doc = Array.isArray(input.doc) && input.doc.length === 0 ? {} : input.doc;
      // A doc that is not an object is passed on as the values, for the command to refuse.
      const { _application_date, ...members } = isJsonObject(doc) ? doc : {};
      const outcome = await createChild(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        connectedTo: input.connected_to,
        applicationDate: _application_date,
        ...(isJsonObject(doc) ? personDraft(members) : { values: doc }),
        submitForms: input.submit_forms,
        disableEmailSending: input.disable_email_sending,
      });
      return registered("Child registered.", "child_registered", outcome);
    },
  }),

  set_status: defineAction({
    schema: setStatusSchema,
    command: SetStatusCommand,
    problemPaths: SET_STATUS_PATHS,
    async run(ctx: RequestContext, input) {
      const outcome = await setUserStatus(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        statusId: input.status_id,
      });
      // Exactly the original's body, `effected_users` spelling included (contract §14).
      return {
        msg: "User status updated successfully.",
        msg_type: "success",
        users: [outcome.cloginId],
        effected_users: 1,
        success: true,
        ...userEnvelope(outcome),
      };
    },
  }),

  add_product: defineAction({
    schema: addProductSchema,
    command: AddProductCommand,
    problemPaths: ADD_PRODUCT_PATHS,
    async run(ctx: RequestContext, input) {
      const list = input.product_list;
      const outcome = await addProducts(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        productList: Array.isArray(list) ? list.map(productEntryDraft) : productEntryDraft(list),
      });
      return {
        success: true,
        msg: "Products added to cart.",
        system_action: ["product_added"],
        cart_ids: outcome.cartIds.map(String),
        notices: outcome.notices,
        ...userEnvelope(outcome),
      };
    },
  }),

  add_email: defineAction({
    schema: addEmailSchema,
    command: AddEmailsCommand,
    problemPaths: ADD_EMAIL_PATHS,
    async run(ctx: RequestContext, input) {
      const list = input.doc.email_list;
      const outcome = await addEmails(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        emails: Array.isArray(list) ? list.map(emailDraft) : emailDraft(list),
      });
      return { success: true, msg: "Emails added successfully", ...userEnvelope(outcome) };
    },
  }),

  login: defineAction({
    answerHoldsCredential: true,
    schema: loginSchema,
    command: LoginCommand,
    problemPaths: USER_PATHS,
    async run(ctx: RequestContext, input) {
      const outcome = await loginUser(ctx, { groupId: input.group_id, cloginId: input.clogin_id });
      return {
        success: true,
        msg: "User logged in.",
        system_action: ["user_logged_in"],
        user_token: outcome.loginToken,
        user_token_expires_at: formatUtcDateTime(outcome.expiresAt),
        ...userEnvelope(outcome),
      };
    },
  }),

  ...userReadActions,
};
