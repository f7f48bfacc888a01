import type { EntityManager } from "typeorm";
import { insertRows } from "../../db/insert-rows";
import {
  CartLine,
  EmailRecord,
  OutboxEmail,
  RegistrationForm,
  TriggerFiring,
  type TriggerAction,
} from "../../entities";

// What a form submission sets off (contract §4): each trigger of the submitted forms acts at most
// once per registration, which the trigger_firing rows record. All effects of one submission are
// written in a handful of batched statements, however many forms or triggers are involved.

/** Trigger emails have no sender of their own; the history shows this address as the sender. */
export const TRIGGER_SENDER_ADDRESS = "no-reply@regapi.invalid";

export interface TriggerTarget {
  registrationId: number;
  cloginId: number;
  mainEmail: string | null;
}

export interface TriggerOptions {
  /** `disable_email_sending`: send_email triggers do not act (and stay unfired, so they can act later). */
  disableEmailSending: boolean;
  now: Date;
}

export interface TriggerEffects {
  /** Forms that joined the registration's form set (add_form). */
  addedFormIds: number[];
  notices: string[];
}

interface PendingTrigger {
  id: number;
  formId: number;
  action: TriggerAction;
  emailTo: string | null;
  emailSubject: string | null;
  emailBody: string | null;
  productId: number | null;
  quantity: number | null;
  addFormId: number | null;
  priceCents: number | null;
}

type Row = Record<string, unknown>;
const nullableNumber = (value: unknown) => (value == null ? null : Number(value));
const nullableText = (value: unknown) => (value == null ? null : String(value));

async function loadUnfiredTriggers(
  em: EntityManager,
  registrationId: number,
  formIds: readonly number[],
): Promise<PendingTrigger[]> {
  const rows: Row[] = await em.query(
    `SELECT t.id, t.form_id, t.action, t.email_to, t.email_subject, t.email_body, t.product_id, t.quantity, t.add_form_id,
            p.price_cents
       FROM form_trigger t
       LEFT JOIN trigger_firing tf ON tf.trigger_id = t.id AND tf.registration_id = ?
       LEFT JOIN product p ON p.id = t.product_id
      WHERE t.form_id IN (${formIds.map(() => "?").join(", ")}) AND tf.trigger_id IS NULL
      ORDER BY t.sort_order, t.id`,
    [registrationId, ...formIds],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    formId: Number(row.form_id),
    action: String(row.action) as TriggerAction,
    emailTo: nullableText(row.email_to),
    emailSubject: nullableText(row.email_subject),
    emailBody: nullableText(row.email_body),
    productId: nullableNumber(row.product_id),
    quantity: nullableNumber(row.quantity),
    addFormId: nullableNumber(row.add_form_id),
    priceCents: nullableNumber(row.price_cents),
  }));
}

/**
 * Runs the not-yet-fired triggers of the submitted forms for one registration.
 * `formSet` is the registration's current form set; forms added here are added to it too.
 */
export async function runFormTriggers(
  em: EntityManager,
  target: TriggerTarget,
  submittedFormIds: readonly number[],
  formSet: Set<number>,
  options: TriggerOptions,
): Promise<TriggerEffects> {
  const effects: TriggerEffects = { addedFormIds: [], notices: [] };
  if (submittedFormIds.length === 0) return effects;
  const triggers = await loadUnfiredTriggers(em, target.registrationId, submittedFormIds);
  const { now } = options;
  const firings: Partial<TriggerFiring>[] = [];
  const outbox: Partial<OutboxEmail>[] = [];
  const history: Partial<EmailRecord>[] = [];
  const cart: Partial<CartLine>[] = [];
  const addedForms: Partial<RegistrationForm>[] = [];

  for (const trigger of triggers) {
    switch (trigger.action) {
      case "send_email": {
        if (options.disableEmailSending) continue;
        const to = trigger.emailTo === "main_email" ? target.mainEmail : trigger.emailTo;
        if (!to) {
          effects.notices.push(
            `The email trigger of form ${trigger.formId} did not send: user ${target.cloginId} has no main email.`,
          );
          continue;
        }
        const subject = trigger.emailSubject ?? "";
        const body = trigger.emailBody ?? "";
        outbox.push({
          registrationId: target.registrationId,
          toAddresses: to,
          subject,
          body,
          state: "pending",
          createdAt: now,
          sentAt: null,
        });
        history.push({
          registrationId: target.registrationId,
          fromAddress: TRIGGER_SENDER_ADDRESS,
          toAddresses: to,
          ccAddresses: null,
          bccAddresses: null,
          subject,
          body,
          adminId: null,
          recordedAt: now,
          origin: "trigger",
        });
        break;
      }
      case "add_product":
        if (trigger.productId === null || trigger.priceCents === null) {
          effects.notices.push(
            `The product trigger of form ${trigger.formId} did not act: its product no longer exists.`,
          );
          continue;
        }
        cart.push({
          registrationId: target.registrationId,
          productId: trigger.productId,
          quantity: trigger.quantity ?? 1,
          unitPriceCents: trigger.priceCents,
          createdAt: now,
        });
        break;
      case "add_form":
        if (trigger.addFormId !== null && !formSet.has(trigger.addFormId)) {
          formSet.add(trigger.addFormId);
          effects.addedFormIds.push(trigger.addFormId);
          addedForms.push({
            registrationId: target.registrationId,
            formId: trigger.addFormId,
            completed: false,
            completedAt: null,
            submittedAt: null,
            addedAt: now,
          });
        }
        break;
    }
    firings.push({ registrationId: target.registrationId, triggerId: trigger.id, firedAt: now });
  }

  await insertRows(em, OutboxEmail, outbox);
  await insertRows(em, EmailRecord, history);
  await insertRows(em, CartLine, cart);
  await insertRows(em, RegistrationForm, addedForms);
  await insertRows(em, TriggerFiring, firings);
  return effects;
}
