import { randomUUID } from "node:crypto";
import type { EntityManager } from "typeorm";
import { pendingWritesOf } from "../unit-of-work";

// Events (contract §16) are recorded by the domain, inside the transaction of the change, so REST,
// GraphQL and the registrant session emit the same ones and a rolled-back call emits none. They
// are written together at the end of the transaction (one INSERT, src/domain/unit-of-work.ts), in
// the order recorded. The delivery worker (src/delivery/) sends them to webhook endpoints after
// the commit.

export const EVENT_TYPES = [
  "user.created",
  "user.updated",
  "form.submitted",
  "form.completed",
  "user.status_changed",
  "cart.product_added",
  "email.recorded",
  "email.queued",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  type: EventType;
  /** The project (`group_id` of the delivered body). */
  groupId: number;
  /** The `data` member of the delivered body: wire names, ids as numbers. */
  data: Record<string, unknown>;
}

/** Records events in `em`'s transaction; they are written when its unit of work completes. */
export function recordEvents(em: EntityManager, events: readonly DomainEvent[], now = new Date()): void {
  pendingWritesOf(em).events.push(
    ...events.map((event) => ({
      publicId: randomUUID(),
      groupId: event.groupId,
      type: event.type,
      data: JSON.stringify(event.data),
      createdAt: now,
    })),
  );
}

export const recordEvent = (em: EntityManager, event: DomainEvent, now?: Date): void => recordEvents(em, [event], now);

/** form.submitted / form.completed for each form, in one statement. */
export function formEvents(
  type: "form.submitted" | "form.completed",
  groupId: number,
  cloginId: number,
  formIds: readonly number[],
): DomainEvent[] {
  return formIds.map((formId) => ({ type, groupId, data: { clogin_id: cloginId, form_id: formId } }));
}
