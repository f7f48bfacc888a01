import {
  countUsers as countMatchingUsers,
  readUsersInRange,
  type RegistrationRef,
  type UserListFilter,
} from "../../data/registrations.data";
import type { RequestContext } from "../context";
import { resolveOwnedProject } from "../group-scope";
import { matchingUsersOf, readProjectCounters, emptyCounters } from "../projects/project-counters";

// Listing a project's users. Nested user data (forms, values, emails, tags, children) is read in
// batches by the GraphQL loaders straight from src/data/, one statement per batch.

export type { RegistrationRef, UserListFilter };

export interface UserPage {
  users: RegistrationRef[];
  /** Users follow the page (after its last uid, within `beforeUid`). */
  hasNextPage: boolean;
  /** Users precede the page (before its first uid, within `afterUid`). */
  hasPreviousPage: boolean;
}

/**
 * Which page: forward (`size` users after `afterUid`) or backward (the last `size` users before
 * `beforeUid`, still listed in uid order). Both bounds may be given; null leaves that end open.
 */
export interface UserPageRequest {
  groupId: number;
  size: number;
  direction: "forward" | "backward";
  afterUid: number | null;
  beforeUid: number | null;
  filter: UserListFilter;
}

/**
 * A page of a project's users in uid order (keyset: the cost does not depend on how deep the page
 * is), read forward or backward. Checks that the caller's organization owns the project.
 */
export async function listUsersPage(ctx: RequestContext, request: UserPageRequest): Promise<UserPage> {
  await resolveOwnedProject(ctx, request.groupId);
  const size = Math.max(0, Math.trunc(request.size));
  const backward = request.direction === "backward";
  // One row more than the page says whether another page lies beyond it in the reading direction.
  const refs = await readUsersInRange(ctx.em, request.groupId, request.filter, {
    afterUid: request.afterUid,
    beforeUid: request.beforeUid,
    limit: size + 1,
    fromEnd: backward,
  });
  const more = refs.length > size;
  const users = backward ? refs.slice(Math.max(0, refs.length - size)) : refs.slice(0, size);
  // The other side is known without a read: a cursor was given there, so at least that user was
  // beyond it when the cursor was issued (as Relay's connection spec allows).
  return {
    users,
    hasNextPage: backward ? request.beforeUid !== null : more,
    hasPreviousPage: backward ? more : request.afterUid !== null,
  };
}

/**
 * How many users of a project match the filter (the page that asks has checked ownership): from
 * the project's counters (one row) unless the filter names a status or searches, which count.
 */
export async function countUsers(ctx: RequestContext, groupId: number, filter: UserListFilter): Promise<number> {
  const counters = (await readProjectCounters(ctx.em, { projectId: groupId })).get(groupId) ?? emptyCounters();
  return matchingUsersOf(counters, filter) ?? (await countMatchingUsers(ctx.em, groupId, filter));
}
