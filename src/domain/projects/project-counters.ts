import type { EntityManager } from "typeorm";
import {
  COUNTER_BUCKETS,
  emptyCounters,
  readProjectCounters,
  readProjectsWithCounters,
  readProjectIds,
  readStatusMoves,
  recountCounters,
  type BucketTotals,
  type CounterBucket,
  type ProjectCounters,
} from "../../data/project-counters.data";
import type { ExclusionFilter } from "../../data/user-list.data";
import type { RequestContext } from "../context";
import { inTransaction } from "../transaction";
import { pendingWritesOf } from "../unit-of-work";

// Per-project counters (registrations, active, parents, children, excluded, order and paid cents)
// kept in the transaction of every write that changes them, so totals cost a few rows' read
// whatever the number of registrations. Each write site states what it changed in terms of
// buckets (`count…` below); the transaction sums those into one delta per project and adds it to
// one counter slot as its last statement (src/domain/unit-of-work.ts). Registrations are never
// deleted.

export { emptyCounters, readProjectCounters, readProjectsWithCounters, type CounterBucket, type ProjectCounters };

/**
 * The bucket of a registration, as the counters' SQL (`bucketSql` in
 * src/data/project-counters.data.ts) computes it, for writers that know their rows.
 * The property test (test/domain/project-counters.property.test.ts) holds the two to the same
 * answer after every step.
 */
export function bucketOf(registration: {
  isChild: boolean;
  excluded: boolean;
  parentExcluded: boolean;
}): CounterBucket {
  if (!registration.isChild) return registration.excluded ? "parent_excluded" : "parent_active";
  if (registration.parentExcluded) return registration.excluded ? "orphan_excluded" : "orphan_active";
  return registration.excluded ? "child_excluded" : "child_active";
}

/** Adds `change` to `bucket` of the pending delta of `projectId` in `em`'s transaction. */
function addToPending(em: EntityManager, projectId: number, bucket: CounterBucket, change: BucketTotals): void {
  const deltas = pendingWritesOf(em).counters;
  let delta = deltas.get(projectId);
  if (!delta) {
    delta = emptyCounters();
    deltas.set(projectId, delta);
  }
  delta[bucket].registrations += change.registrations;
  delta[bucket].orderCents += change.orderCents;
  delta[bucket].paidCents += change.paidCents;
}

/** A new registration (create, create_child) in its bucket. */
export function countRegistration(em: EntityManager, projectId: number, bucket: CounterBucket): void {
  addToPending(em, projectId, bucket, { registrations: 1, orderCents: 0, paidCents: 0 });
}

/** Cart lines added to a registration in `bucket` (add_product, triggers): their summed amount. */
export function countOrder(em: EntityManager, projectId: number, bucket: CounterBucket, orderCents: number): void {
  if (orderCents !== 0) addToPending(em, projectId, bucket, { registrations: 0, orderCents, paidCents: 0 });
}

/** Registrations whose buckets and money the caller computed (`regapi seed`). */
export function countDelta(em: EntityManager, projectId: number, delta: ProjectCounters): void {
  for (const bucket of COUNTER_BUCKETS) addToPending(em, projectId, bucket, delta[bucket]);
}

/**
 * Before a registration's status becomes `statusId` (null: none): moves it, and a parent's
 * children, between active and excluded buckets when the exclusion changes; nothing otherwise.
 * The caller holds the family's lock (requireRegisteredUser with `lock`), so the money read here
 * is the family's current money.
 */
export async function countStatusChange(em: EntityManager, uid: number, statusId: number | null): Promise<void> {
  for (const move of await readStatusMoves(em, uid, statusId)) {
    const money = { orderCents: move.orderCents, paidCents: move.paidCents };
    addToPending(em, move.projectId, move.from, {
      registrations: -1,
      orderCents: -money.orderCents,
      paidCents: -money.paidCents,
    });
    addToPending(em, move.projectId, move.to, { registrations: 1, ...money });
  }
}

/** Rebuilds one project's counters inside the caller's transaction (fixture load: rows written in bulk). */
export async function countersRecountProject(em: EntityManager, projectId: number): Promise<void> {
  await recountCounters(em, { projectId });
}

/** Rebuilds the counters of one project, or of every project; returns the projects recounted. */
export async function recountProjectCounters(ctx: RequestContext, projectId: number | null): Promise<number[]> {
  return inTransaction(ctx, async ({ em }) => {
    if (projectId !== null) {
      await recountCounters(em, { projectId });
      return [projectId];
    }
    await recountCounters(em, "all");
    return readProjectIds(em);
  });
}

// What the counters answer. Which registrations each request counts is the sum of some buckets.

const sumOf = (counters: ProjectCounters, buckets: readonly CounterBucket[]): BucketTotals =>
  buckets.reduce(
    (total, bucket) => ({
      registrations: total.registrations + counters[bucket].registrations,
      orderCents: total.orderCents + counters[bucket].orderCents,
      paidCents: total.paidCents + counters[bucket].paidCents,
    }),
    { registrations: 0, orderCents: 0, paidCents: 0 },
  );

const ALL: readonly CounterBucket[] = COUNTER_BUCKETS;
const ACTIVE: readonly CounterBucket[] = ["parent_active", "child_active", "orphan_active"];
const EXCLUDED: readonly CounterBucket[] = ["parent_excluded", "child_excluded", "orphan_excluded"];
const PARENTS: readonly CounterBucket[] = ["parent_active", "parent_excluded"];
const CHILDREN: readonly CounterBucket[] = ["child_active", "child_excluded", "orphan_active", "orphan_excluded"];
const intersect = (a: readonly CounterBucket[], b: readonly CounterBucket[]) => a.filter((x) => b.includes(x));

/** A project's totals: every registration, the active ones (no excluding status), all money. */
export function projectTotalsOf(counters: ProjectCounters): {
  users: number;
  activeUsers: number;
  orderCents: number;
  paidCents: number;
} {
  const all = sumOf(counters, ALL);
  return {
    users: all.registrations,
    activeUsers: sumOf(counters, ACTIVE).registrations,
    orderCents: all.orderCents,
    paidCents: all.paidCents,
  };
}

/**
 * get_user_list totals (contract §12, §18) from the counters. The records of a list are the
 * matching parents plus the matching children of matching parents (or, with only_children, the
 * matching children alone); `topLevel` counts what pages are made of.
 */
export function listTotalsOf(
  counters: ProjectCounters,
  query: { exclusion: ExclusionFilter; onlyParents: boolean; onlyChildren: boolean },
): { topLevel: number; totalUsers: number; totalActiveUsers: number; orderCents: number; paidCents: number } {
  const parents =
    query.exclusion === "with_excluded"
      ? PARENTS
      : query.exclusion === "without_excluded"
        ? (["parent_active"] as const)
        : (["parent_excluded"] as const);
  const matchingChildren =
    query.exclusion === "with_excluded"
      ? CHILDREN
      : query.exclusion === "without_excluded"
        ? intersect(CHILDREN, ACTIVE)
        : intersect(CHILDREN, EXCLUDED);
  // Children whose parent matches too: a parent excluded or not puts them in child_* or orphan_*.
  const childrenOfMatchingParents =
    query.exclusion === "with_excluded"
      ? CHILDREN
      : query.exclusion === "without_excluded"
        ? (["child_active"] as const)
        : (["orphan_excluded"] as const);
  const records = query.onlyChildren
    ? matchingChildren
    : query.onlyParents
      ? parents
      : [...parents, ...childrenOfMatchingParents];
  const totals = sumOf(counters, records);
  return {
    topLevel: sumOf(counters, query.onlyChildren ? matchingChildren : parents).registrations,
    totalUsers: totals.registrations,
    totalActiveUsers: sumOf(counters, intersect(records, ACTIVE)).registrations,
    orderCents: totals.orderCents,
    paidCents: totals.paidCents,
  };
}

/** A users-connection filter, as far as the counters can answer it. */
export interface UsersFilter {
  statusId?: number | null;
  excluded?: boolean | null;
  level?: "parent" | "child" | null;
  search?: string | null;
  updatedSince?: Date | null;
  tagId?: number | null;
}

/**
 * The counter buckets whose registrations match a users-connection filter; null when the filter
 * names a status or searches names (those are counted).
 */
export function matchingBucketsOf(filter: UsersFilter): readonly CounterBucket[] | null {
  if (filter.statusId != null || (filter.search ?? "").trim() !== "" || filter.updatedSince || filter.tagId != null)
    return null;
  let buckets = ALL;
  if (filter.excluded === true) buckets = intersect(buckets, EXCLUDED);
  if (filter.excluded === false) buckets = intersect(buckets, ACTIVE);
  if (filter.level === "parent") buckets = intersect(buckets, PARENTS);
  if (filter.level === "child") buckets = intersect(buckets, CHILDREN);
  return buckets;
}

/**
 * How many registrations match a users-connection filter, from the counters; null when the
 * filter names a status or searches names (those are counted).
 */
export function matchingUsersOf(counters: ProjectCounters, filter: UsersFilter): number | null {
  const buckets = matchingBucketsOf(filter);
  return buckets && registrationsIn(counters, buckets);
}

/** The registrations the counters hold in `buckets`. */
export const registrationsIn = (counters: ProjectCounters, buckets: readonly CounterBucket[]): number =>
  sumOf(counters, buckets).registrations;
