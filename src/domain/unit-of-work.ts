import { randomInt } from "node:crypto";
import type { EntityManager } from "typeorm";
import { insertEvents, type NewEventRow } from "../data/events.data";
import { addToCounterSlots, COUNTER_SLOTS, type ProjectCounters } from "../data/project-counters.data";

// What a transaction writes at its very end, after its own work and just before COMMIT: the events
// it recorded (one INSERT however many), then its counter deltas (one upsert into one slot per
// project). Events batched this way cost one statement per call instead of one per step (a
// create records user.created, form events and email.queued). The counter slot goes last on
// purpose: the lock on it is then held only for the COMMIT, and a transaction holding it never
// waits for another lock, so it cannot be part of a deadlock (docs/counters.md, "Locks").
// inTransaction (src/domain/transaction.ts) opens and completes the unit of work; a rerun after a
// deadlock starts from an empty one.

interface PendingWrites {
  events: NewEventRow[];
  counters: Map<number, ProjectCounters>;
}

const units = new WeakMap<EntityManager, PendingWrites>();

/** Starts collecting the deferred writes of the transaction whose manager is `em`. */
export function openUnitOfWork(em: EntityManager): void {
  units.set(em, { events: [], counters: new Map() });
}

/**
 * The deferred writes of `em`'s transaction. Throws when `em` is not a transaction opened by
 * inTransaction: an event or a counter delta recorded there would never be written.
 */
export function pendingWritesOf(em: EntityManager): PendingWrites {
  const unit = units.get(em);
  if (!unit) throw new Error("events and counters are recorded inside inTransaction only");
  return unit;
}

/** Writes what the transaction deferred: its events, then its counter deltas (last: see above). */
export async function completeUnitOfWork(em: EntityManager): Promise<void> {
  const unit = pendingWritesOf(em);
  units.delete(em);
  await insertEvents(em, unit.events);
  await addToCounterSlots(
    em,
    [...unit.counters]
      .filter(([, delta]) => Object.values(delta).some((m) => m.registrations || m.orderCents || m.paidCents))
      .map(([projectId, delta]) => ({ projectId, slot: randomInt(COUNTER_SLOTS), delta })),
  );
}
