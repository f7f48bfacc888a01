import type { EntityManager } from "typeorm";
import { CartLine, OutboxEmail, TriggerFiring, type TriggerAction } from "../entities";
import { insertRows } from "../db/insert-rows";
import { insertEmailHistory, type NewEmailHistoryEntry } from "./email-history.data";
import { addFormsToRegistration } from "./forms.data";
import { selectRows, sqlPlaceholders } from "./sql-rows";

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
}

/** The triggers of the forms that have not fired for the registration, in trigger order. */
export async function readUnfiredTriggers(
  em: EntityManager,
  registrationId: number,
  formIds: readonly number[],
): Promise<PendingTrigger[]> {
  if (formIds.length === 0) return [];
  const rows = await selectRows(
    em,
    {
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
    },
    `SELECT t.id, t.form_id, t.action, t.email_to, t.email_subject, t.email_body, t.product_id, t.quantity, t.add_form_id,
            p.price_cents
       FROM form_trigger t
       LEFT JOIN trigger_firing tf ON tf.trigger_id = t.id AND tf.registration_id = ?
       LEFT JOIN product p ON p.id = t.product_id
      WHERE t.form_id IN (${sqlPlaceholders(formIds.length)}) AND tf.trigger_id IS NULL
      ORDER BY t.sort_order, t.id`,
    [registrationId, ...formIds],
  );
  return rows.map((row) => ({
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
  }));
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
  await addFormsToRegistration(em, registrationId, writes.addedFormIds, now);
  await insertRows(
    em,
    TriggerFiring,
    writes.firedTriggerIds.map((triggerId) => ({ registrationId, triggerId, firedAt: now })),
  );
}
