import { randomUUID } from "node:crypto";
import type { EntityManager } from "typeorm";
import { pendingWritesOf, touchRegistration } from "../unit-of-work";

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
  "person.erased",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  type: EventType;
  /** The project (`group_id` of the delivered body). */
  groupId: number;
  /** The `data` member of the delivered body: wire names, ids as numbers. */
  data: Record<string, unknown>;
  /** The admin the caller named for this change (add_email's `admin_id`): added to the event's actor. */
  adminId?: number | null;
}

/**
 * Longest string in an event's `data`. A payload is stored in a TEXT column (65,535 bytes on
 * MySQL/MariaDB) and sent to every endpoint, while `add_email` accepts a 65,535-byte subject and
 * address list; a cut value ends with "…" and the email history keeps it whole. At 6 bytes per
 * character at worst (JSON's \u escapes), a payload's few strings stay far below the column.
 */
export const EVENT_TEXT_MAX_CHARS = 1000;

function boundedText(value: unknown): unknown {
  if (typeof value === "string") {
    if (value.length <= EVENT_TEXT_MAX_CHARS) return value;
    // By code points, so a cut never splits a surrogate pair.
    const points = Array.from(value);
    return points.length <= EVENT_TEXT_MAX_CHARS ? value : `${points.slice(0, EVENT_TEXT_MAX_CHARS - 1).join("")}…`;
  }
  if (Array.isArray(value)) return value.map(boundedText);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, boundedText(member)]));
  return value;
}

/**
 * Records events in `em`'s transaction; they are written when its unit of work completes, each
 * with the transaction's actor. An event about a registration (`data.clogin_id`) marks that
 * registration changed, so its updated_at moves with every change an event describes.
 */
export function recordEvents(em: EntityManager, events: readonly DomainEvent[], now = new Date()): void {
  const unit = pendingWritesOf(em);
  for (const event of events) {
    const cloginId = event.data.clogin_id;
    if (typeof cloginId === "number") touchRegistration(em, event.groupId, cloginId);
    const actor = event.adminId != null ? { ...unit.actor, admin_id: event.adminId } : unit.actor;
    unit.events.push({
      publicId: randomUUID(),
      groupId: event.groupId,
      type: event.type,
      data: JSON.stringify(boundedText(event.data)),
      actor: JSON.stringify(actor),
      createdAt: now,
    });
  }
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
