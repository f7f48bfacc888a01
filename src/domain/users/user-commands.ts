import type { UserSummary } from "./user-summary";

// The users operations, in domain terms. Both adapters (legacy REST and GraphQL) build these
// commands and present these outcomes; neither holds a rule of its own.

/** A value for a field: text, a number, or the chosen options of a choice field. */
export type FieldInputValue = string | number | string[];

export interface CreateUserCommand {
  groupId: number;
  /** An existing person of the caller's organization to register here too, or null for a new person. */
  cloginId: number | null;
  /** Parent's clogin_id, for a child in a family project (REST `connected_to`). */
  connectedTo: number | null;
  username?: string;
  password?: string;
  mainEmail?: string;
  firstName?: string;
  lastName?: string;
  orgName?: string;
  /** Other doc keys: field identifiers or mapped names, handled as in update. */
  values: Record<string, unknown>;
  submitForms: boolean;
  disableEmailSending: boolean;
}

/** `all`, or the ids exactly as the client sent them (numbers, digit strings or anything else). */
export type FormSelection = { all: true } | { formIds: unknown[] };

export interface UpdateUserCommand {
  groupId: number;
  cloginId: number;
  /** REST `connected_to`: when given it must be the user's own (its parent's for a child), else VALIDATION_FAILED. */
  connectedTo?: number | null;
  /** The `doc` values, or null when the client sent none. */
  values: Record<string, unknown> | null;
  markFormsComplete: FormSelection | null;
  submitForms: boolean;
  disableEmailSending: boolean;
}

export interface EmailInput {
  from: string;
  to: string;
  subject: string;
  body: string;
  cc?: string | null;
  bcc?: string | null;
  adminId?: number | null;
}

export interface AddEmailsCommand {
  groupId: number;
  cloginId: number;
  emails: EmailInput[];
}

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
}

export interface UpdateUserOutcome extends UserOutcome {
  /** True when the command carried `doc` values (selects the legacy message text). */
  valuesSent: boolean;
  /** Present when the command carried `mark_forms_complete`. */
  markFormsComplete: { markedComplete: number[]; skipped: SkippedForm[] } | null;
}
