import type { EntityManager } from "typeorm";
import { CartLine, OutboxEmail, TriggerFiring, type TriggerAction } from "../entities";
import { insertRows } from "../db/insert-rows";
import { insertEmailHistory, type NewEmailHistoryEntry } from "./email-history.data";
import { addFormsToRegistration } from "./forms.data";
import type { RowOf } from "./sql-rows";

/** A trigger of a submitted form that has not acted for the registration yet. */
export interface PendingTrigger {
  id: number;
  formId: number;
  action: TriggerAction;
  emailTo: string | null;
  emailSubject: string | null;
  emailBody: string | null;
  productId: number | null;
  quantity: number | null;
  addFormId: number | null;
  /** The product's current price; null when the product no longer exists. */
  priceCents: number | null;
  /** Its place in trigger order (with its id). */
  sortOrder: number;
}

/** Trigger order: sort_order, then id. */
export const inTriggerOrder = (a: PendingTrigger, b: PendingTrigger): number =>
  a.sortOrder - b.sortOrder || a.id - b.id;

/**
 * A trigger's columns (alias `t`, its product `p`): its row shape's member names and the SQL of
 * each. `sort` orders triggers where SQL cannot (a JSON aggregate).
 */
export const TRIGGER_MEMBERS = [
  ["id", "t.id"],
  ["form_id", "t.form_id"],
  ["action", "t.action"],
  ["email_to", "t.email_to"],
  ["email_subject", "t.email_subject"],
  ["email_body", "t.email_body"],
  ["product_id", "t.product_id"],
  ["quantity", "t.quantity"],
  ["add_form_id", "t.add_form_id"],
  ["price_cents", "p.price_cents"],
  ["sort", "t.sort_order"],
] as const;

export const TRIGGER_SHAPE = {
  id: "int",
  form_id: "int",
  action: "text",
  email_to: "textOrNull",
  email_subject: "textOrNull",
  email_body: "textOrNull",
  product_id: "intOrNull",
  quantity: "intOrNull",
  add_form_id: "intOrNull",
  price_cents: "intOrNull",
  sort: "int",
} as const;

/** Triggers in trigger order (sort_order, then id). */
export function toTriggers(rows: RowOf<typeof TRIGGER_SHAPE>[]): PendingTrigger[] {
  return rows
    .map((row) => ({
      id: row.id,
      formId: row.form_id,
      action: row.action as TriggerAction,
      emailTo: row.email_to,
      emailSubject: row.email_subject,
      emailBody: row.email_body,
      productId: row.product_id,
      quantity: row.quantity,
      addFormId: row.add_form_id,
      priceCents: row.price_cents,
      sortOrder: row.sort,
    }))
    .sort(inTriggerOrder);
}

/** Everything the triggers of one submission do to one registration. */
export interface TriggerWrites {
  registrationId: number;
  now: Date;
  outbox: { to: string; subject: string; body: string; messageId: string }[];
  history: NewEmailHistoryEntry[];
  cartLines: { productId: number; quantity: number; unitPriceCents: number }[];
  addedFormIds: number[];
  firedTriggerIds: number[];
}

/** Writes a submission's trigger effects: one multi-row INSERT per kind of row that has any. */
export async function writeTriggerEffects(em: EntityManager, writes: TriggerWrites): Promise<void> {
  const { registrationId, now } = writes;
  await insertRows(
    em,
    OutboxEmail,
    writes.outbox.map((email) => ({
      registrationId,
      toAddresses: email.to,
      subject: email.subject,
      body: email.body,
      messageId: email.messageId,
      state: "queued" as const,
      createdAt: now,
      sentAt: null,
    })),
  );
  await insertEmailHistory(em, writes.history);
  await insertRows(
    em,
    CartLine,
    writes.cartLines.map((line) => ({ registrationId, ...line, createdAt: now })),
  );
  await addFormsToRegistration(
    em,
    registrationId,
    writes.addedFormIds.map((formId) => ({ formId })),
    now,
  );
  await insertRows(
    em,
    TriggerFiring,
    writes.firedTriggerIds.map((triggerId) => ({ registrationId, triggerId, firedAt: now })),
  );
}
