import { randomUUID } from "node:crypto";
import type { EntityManager } from "typeorm";
import { pendingWritesOf, touchRegistration } from "../unit-of-work";

// Events (contract §16) are recorded by the domain, inside the transaction of the change, so REST,
// GraphQL and the registrant session emit the same ones and a rolled-back call emits none. They
// are written together at the end of the transaction (one INSERT, src/domain/unit-of-work.ts), in
// the order recorded. The delivery worker (src/delivery/) sends them to webhook endpoints after
// the commit.

/**
 * What about a registration an event says changed: the parts of it `users(filter: {updatedSince})`
 * and get_user_list's `modified_since` report (the registration's updated_at), named once.
 */
export const REGISTRATION_PARTS = {
  registration: "its creation or erasure",
  values: "its values",
  forms: "its forms",
  cart: "its cart",
  status: "its status",
  emails: "its emails",
} as const;
export type RegistrationPart = keyof typeof REGISTRATION_PARTS;

/**
 * Every event type, declared once: what it says and which part of its registration changed.
 * Every event is about one registration (`data.clogin_id`), and the one rule is this table's: an
 * event recorded stamps its registration's updated_at (recordEvents), so every change
 * `updatedSince` reports is an event, and the subscriptions deliver every event of the table
 * (live-events.ts). The REST list of types, the webhook subscription's check and the GraphQL
 * `EventType` enum (values and descriptions) are generated from it.
 */
export const EVENT_KINDS = {
  "user.created": {
    part: "registration",
    description: "A registration was created (data.connected_to: its parent, or null).",
  },
  "user.updated": { part: "values", description: "Values of a registration were written (data.field_ids)." },
  "form.submitted": { part: "forms", description: "A form of the registration was submitted (data.form_id)." },
  "form.completed": { part: "forms", description: "A form of the registration became complete (data.form_id)." },
  "user.status_changed": { part: "status", description: "The registration's status was set (data.status_id)." },
  "cart.product_added": {
    part: "cart",
    description: "Products were added to the registration's cart (data.cart_ids, data.products).",
  },
  "cart.product_removed": {
    part: "cart",
    description: "A line was removed from the registration's cart (data.cart_id, data.p_id, data.q).",
  },
  "email.recorded": {
    part: "emails",
    description: "An email sent outside regapi was recorded in the registration's history (data.to, data.subject).",
  },
  "email.queued": {
    part: "emails",
    description: "A form trigger queued an email to the registrant (data.message_id, data.to, data.subject).",
  },
  "person.erased": {
    part: "registration",
    description:
      "The person behind the registration was erased (GDPR): its names, addresses and values are gone; ids and amounts stay.",
  },
} as const satisfies Record<string, { part: RegistrationPart; description: string }>;

export type EventType = keyof typeof EVENT_KINDS;
export const EVENT_TYPES = Object.keys(EVENT_KINDS) as [EventType, ...EventType[]];

export interface DomainEvent {
  type: EventType;
  /** The project (`group_id` of the delivered body). */
  groupId: number;
  /** The `data` member of the delivered body: wire names, ids as numbers; every event names its registration. */
  data: { clogin_id: number } & Record<string, unknown>;
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
 * with the transaction's actor. Each marks its registration (`data.clogin_id`) changed, so its
 * updated_at moves with every change an event describes (EVENT_KINDS).
 */
export function recordEvents(em: EntityManager, events: readonly DomainEvent[], now = new Date()): void {
  const unit = pendingWritesOf(em);
  for (const event of events) {
    touchRegistration(em, event.groupId, event.data.clogin_id);
    // A child's change stamps its parent too (unit-of-work.ts): the event names the parent, so a
    // subscriber of the parent's registration receives it (live-events.ts).
    const parent = unit.familyParents.get(`${event.groupId}:${event.data.clogin_id}`);
    const data = parent ? { ...event.data, parent_clogin_id: parent.cloginId } : event.data;
    const actor = event.adminId != null ? { ...unit.actor, admin_id: event.adminId } : unit.actor;
    unit.events.push({
      publicId: randomUUID(),
      groupId: event.groupId,
      type: event.type,
      data: JSON.stringify(boundedText(data)),
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
