import {
  countUsers as countMatchingUsers,
  readUsersAfter,
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
  hasNextPage: boolean;
}

/**
 * A page of a project's users in uid order, after a uid (keyset: the cost does not depend on how
 * deep the page is). Checks that the caller's organization owns the project.
 */
export async function listUsersPage(
  ctx: RequestContext,
  request: { groupId: number; first: number; afterUid: number | null; filter: UserListFilter },
): Promise<UserPage> {
  await resolveOwnedProject(ctx, request.groupId);
  // One row more than the page says whether another page follows.
  const limit = Math.max(0, Math.trunc(request.first)) + 1;
  const refs = await readUsersAfter(ctx.em, request.groupId, request.filter, request.afterUid, limit);
  return { users: refs.slice(0, limit - 1), hasNextPage: refs.length === limit };
}

/**
 * How many users of a project match the filter (the page that asks has checked ownership): from
 * the project's counters (one row) unless the filter names a status or searches, which count.
 */
export async function countUsers(ctx: RequestContext, groupId: number, filter: UserListFilter): Promise<number> {
  const counters = (await readProjectCounters(ctx.em, { projectId: groupId })).get(groupId) ?? emptyCounters();
  return matchingUsersOf(counters, filter) ?? (await countMatchingUsers(ctx.em, groupId, filter));
}
