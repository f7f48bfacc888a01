import { randomUUID } from "node:crypto";
import type { EntityManager } from "typeorm";
import { recordEvents } from "../events/record-event";
import { touchRegistration } from "../unit-of-work";
import { writeTriggerEffects, type PendingTrigger, type TriggerWrites } from "../../data/triggers.data";
import { lineAmountCents } from "../account-totals";
import { countOrder, type CounterBucket } from "../projects/project-counters";

// What a form submission sets off (contract §4): each trigger of the submitted forms acts at most
// once per registration, which the trigger_firing rows record. All effects of one submission are
// written in a handful of batched statements, however many forms or triggers are involved.

/** Trigger emails have no sender of their own; the history shows this address as the sender. */
export const TRIGGER_SENDER_ADDRESS = "no-reply@regapi.invalid";

export interface TriggerTarget {
  registrationId: number;
  cloginId: number;
  mainEmail: string | null;
  /** Its counter bucket, for the money of products the triggers add. */
  bucket: CounterBucket;
}

export interface TriggerOptions {
  /** `disable_email_sending`: send_email triggers do not act (and stay unfired, so they can act later). */
  disableEmailSending: boolean;
  now: Date;
  /** The project, for the email.queued events. */
  projectId: number;
}

export interface TriggerEffects {
  /** Forms that joined the registration's form set (add_form). */
  addedFormIds: number[];
  notices: string[];
}

/** What a submission's triggers do, planned before anything is written. */
export interface PlannedTriggerEffects {
  effects: TriggerEffects;
  writes: TriggerWrites;
  /** email.queued for each email the triggers queue. */
  events: ReturnType<typeof emailQueuedEvents>;
  /** The amount of the cart lines the triggers add. */
  orderCents: number;
}

/**
 * What the given triggers (not fired yet for the registration, of its submitted forms, in trigger
 * order) do: pure, so a new registration's triggers are planned with its other rows and written
 * with them. `formSet` is the registration's form set; forms added here join it.
 */
export function planTriggerEffects(
  triggers: readonly PendingTrigger[],
  target: TriggerTarget,
  formSet: Set<number>,
  options: TriggerOptions,
): PlannedTriggerEffects {
  const effects: TriggerEffects = { addedFormIds: [], notices: [] };
  const writes: TriggerWrites = {
    registrationId: target.registrationId,
    now: options.now,
    outbox: [],
    history: [],
    cartLines: [],
    addedFormIds: [],
    firedTriggerIds: [],
  };

  for (const trigger of triggers) {
    switch (trigger.action) {
      case "send_email":
        if (!planTriggerEmail(trigger, target, options, effects, writes)) continue;
        break;
      case "add_product":
        if (trigger.productId === null || trigger.priceCents === null) {
          effects.notices.push(
            `The product trigger of form ${trigger.formId} did not act: its product no longer exists.`,
          );
          continue;
        }
        writes.cartLines.push({
          productId: trigger.productId,
          quantity: trigger.quantity ?? 1,
          unitPriceCents: trigger.priceCents,
        });
        break;
      case "add_form":
        if (trigger.addFormId !== null && !formSet.has(trigger.addFormId)) {
          formSet.add(trigger.addFormId);
          effects.addedFormIds.push(trigger.addFormId);
          writes.addedFormIds.push(trigger.addFormId);
        }
        break;
    }
    writes.firedTriggerIds.push(trigger.id);
  }
  return {
    effects,
    writes,
    events: emailQueuedEvents(options.projectId, target.cloginId, writes.outbox),
    orderCents: writes.cartLines.reduce((sum, line) => sum + lineAmountCents(line.quantity, line.unitPriceCents), 0),
  };
}

/**
 * Queues the email of a send_email trigger, with its entry in the registration's email history.
 * False when it does not act now (email sending disabled, or no address to send to): it stays
 * unfired, so a later submission can still send it.
 */
function planTriggerEmail(
  trigger: PendingTrigger,
  target: TriggerTarget,
  options: TriggerOptions,
  effects: TriggerEffects,
  writes: TriggerWrites,
): boolean {
  if (options.disableEmailSending) return false;
  const to = trigger.emailTo === "main_email" ? target.mainEmail : trigger.emailTo;
  if (!to) {
    effects.notices.push(
      `The email trigger of form ${trigger.formId} did not send: user ${target.cloginId} has no main email.`,
    );
    return false;
  }
  const subject = trigger.emailSubject ?? "";
  const body = trigger.emailBody ?? "";
  const messageId = `<${randomUUID()}@regapi.invalid>`;
  writes.outbox.push({ to, subject, body, messageId });
  writes.history.push({
    uid: target.registrationId,
    from: TRIGGER_SENDER_ADDRESS,
    to,
    cc: null,
    bcc: null,
    subject,
    body,
    adminId: null,
    recordedAt: options.now,
    origin: "trigger",
    messageId,
  });
  return true;
}

/** Writes planned trigger effects: their rows, their events and their money in the counters. */
export async function applyTriggerEffects(
  em: EntityManager,
  planned: PlannedTriggerEffects,
  target: TriggerTarget,
  options: TriggerOptions,
): Promise<void> {
  await writeTriggerEffects(em, planned.writes);
  recordEvents(em, planned.events, options.now);
  // An added form or cart line records no event of its own: the registration changed all the same.
  touchRegistration(em, options.projectId, target.cloginId);
  countOrder(em, options.projectId, target.bucket, planned.orderCents);
}

const emailQueuedEvents = (groupId: number, cloginId: number, outbox: TriggerWrites["outbox"]) =>
  outbox.map((email) => ({
    type: "email.queued" as const,
    groupId,
    data: { clogin_id: cloginId, message_id: email.messageId, to: email.to, subject: email.subject },
  }));
