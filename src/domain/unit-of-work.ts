import { randomInt } from "node:crypto";
import type { EntityManager } from "typeorm";
import { insertEvents, type NewEventRow } from "../data/events.data";
import { addToCounterSlots, COUNTER_SLOTS, type ProjectCounters } from "../data/project-counters.data";
import { stampRegistrationsUpdated, stampRegistrationsUpdatedByUid } from "../data/registrations-updated.data";

// What a transaction writes at its very end, after its own work and just before COMMIT: the
// updated_at of the registrations it changed (one UPDATE however many), the events it recorded
// (one INSERT however many), then its counter deltas (one upsert into one slot per project).
// Events batched this way cost one statement per call instead of one per step (a create records
// user.created, form events and email.queued). The counter slot goes last on purpose: the lock on
// it is then held only for the COMMIT, and a transaction holding it never waits for another lock,
// so it cannot be part of a deadlock (docs/locking.md). The registrations stamped were locked by
// the work already (every write locks its registration first), and the stamp finds them by uid,
// the primary key that lock holds: through another index (person_id) it would ask for index
// entries the work did not lock, which an erasure scanning that index may hold.
// inTransaction (src/domain/transaction.ts) opens and completes the unit of work; a rerun after a
// deadlock starts from an empty one.

/**
 * Who a transaction acts for, carried by every event it records (the feed doubles as an audit
 * trail): an API account, a registrant session, or the system (the delivery worker, the CLI).
 */
export type Actor =
  | { type: "api_account"; api_account_id: number }
  | { type: "registrant"; group_id: number; clogin_id: number }
  | { type: "system" };

interface PendingWrites {
  actor: Actor;
  events: NewEventRow[];
  counters: Map<number, ProjectCounters>;
  /** Registrations changed by the transaction, as `project id` → person ids (clogin_ids). */
  touched: Map<number, Set<number>>;
  /** Registrations whose updated_at a statement of the work wrote already (insert, status change): `project:person`. */
  stamped: Set<string>;
  /** The parent of each child registration whose family the work locked, by the child's `project:person`. */
  familyParents: Map<string, { groupId: number; cloginId: number }>;
  /** The uids of the registrations the work locked or inserted, by `project:person`. */
  uids: Map<string, number>;
}

const units = new WeakMap<EntityManager, PendingWrites>();

/** Starts collecting the deferred writes of the transaction whose manager is `em`. */
export function openUnitOfWork(em: EntityManager, actor: Actor = { type: "system" }): void {
  units.set(em, {
    actor,
    events: [],
    counters: new Map(),
    touched: new Map(),
    stamped: new Set(),
    familyParents: new Map(),
    uids: new Map(),
  });
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

/**
 * Marks a registration (project, clogin_id) changed: its updated_at is stamped when the unit of
 * work completes. Recording an event about a registration marks it already (record-event.ts).
 */
export function touchRegistration(em: EntityManager, groupId: number, cloginId: number): void {
  addTouched(pendingWritesOf(em), groupId, cloginId);
}

function addTouched(unit: PendingWrites, groupId: number, cloginId: number): void {
  const persons = unit.touched.get(groupId) ?? new Set<number>();
  persons.add(cloginId);
  unit.touched.set(groupId, persons);
}

/**
 * Notes that a statement of the work set the registration's updated_at itself (its INSERT, the
 * status UPDATE): the end of the unit of work need not stamp it again, which saves a statement.
 */
export function registrationStamped(em: EntityManager, groupId: number, cloginId: number): void {
  pendingWritesOf(em).stamped.add(`${groupId}:${cloginId}`);
}

/**
 * Notes that the work locked a child's family (its parent's row): when the child changes, the
 * parent's updated_at is stamped with it. The parent's answer holds its children (GraphQL
 * `children`, the family's totals), so it did change; and the parent's row is then written by
 * every write to the family, which is what makes two such writes through different Galera nodes
 * conflict at certification (one is rerun) instead of both committing on a row lock that only
 * its own node knew of (docs/scale-out.md).
 */
export function noteFamilyParent(
  em: EntityManager,
  groupId: number,
  childCloginId: number,
  parentCloginId: number,
): void {
  pendingWritesOf(em).familyParents.set(`${groupId}:${childCloginId}`, { groupId, cloginId: parentCloginId });
}

/**
 * Notes the uid of a registration the work locked (or inserted), so the end of the unit of work
 * stamps it by primary key, the lock the work holds.
 */
export function noteRegistrationUid(em: EntityManager, groupId: number, cloginId: number, uid: number): void {
  pendingWritesOf(em).uids.set(`${groupId}:${cloginId}`, uid);
}

/** Adds the parents of the changed children (noteFamilyParent) to the registrations to stamp. */
function withFamilyParents(unit: PendingWrites): void {
  const changed = [
    ...unit.stamped,
    ...[...unit.touched].flatMap(([project, persons]) => [...persons].map((person) => `${project}:${person}`)),
  ];
  for (const key of changed) {
    const parent = unit.familyParents.get(key);
    if (parent) addTouched(unit, parent.groupId, parent.cloginId);
  }
}

/** Writes what the transaction deferred: updated_at stamps, its events, then its counter deltas (last: see above). */
export async function completeUnitOfWork(em: EntityManager): Promise<void> {
  const unit = pendingWritesOf(em);
  units.delete(em);
  withFamilyParents(unit);
  const now = new Date();
  const byUid: number[] = [];
  const byPerson = [...unit.touched].map(([projectId, persons]) => ({
    projectId,
    personIds: [...persons].filter((personId) => {
      const key = `${projectId}:${personId}`;
      if (unit.stamped.has(key)) return false;
      const uid = unit.uids.get(key);
      if (uid === undefined) return true;
      byUid.push(uid);
      return false;
    }),
  }));
  await stampRegistrationsUpdatedByUid(em, byUid, now);
  // A registration the work changed without locking it first (none of the API's writes).
  await stampRegistrationsUpdated(em, byPerson, now);
  await insertEvents(em, unit.events);
  await addToCounterSlots(
    em,
    [...unit.counters]
      .filter(([, delta]) => Object.values(delta).some((m) => m.registrations || m.orderCents || m.paidCents))
      .map(([projectId, delta]) => ({ projectId, slot: randomInt(COUNTER_SLOTS), delta })),
  );
}
