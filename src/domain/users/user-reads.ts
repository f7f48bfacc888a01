import type { RegistrationRef } from "../../data/registrations.data";
import {
  countUsers as countMatchingUsers,
  readSummaryPageInRange,
  UID_ORDER,
  type UserCount,
  type UserListFilter as MatchingUsers,
  type UserOrder,
  type UserOrderKey,
  type UserPosition,
} from "../../data/user-page.data";
import { sortNameOf } from "../../data/person-search.data";
import { summaryMembers, type SummaryMembers } from "../../data/user-projection";
import type { RequestContext } from "../context";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import {
  emptyCounters,
  matchingBucketsOf,
  readProjectCounters,
  registrationsIn,
  type UsersFilter,
} from "../projects/project-counters";
import { searchWordsOf } from "./search-words";
import type { UserSummary } from "./user-summary";

// Listing a project's users. Nested user data (forms, values, emails, tags, children) is read in
// batches by the GraphQL loaders straight from src/data/, one statement per batch.

export type { RegistrationRef, SummaryMembers, UserCount, UserOrder, UserOrderKey, UserPosition };
export { UID_ORDER };

/** A user's place in `order` (what a cursor of that order carries). */
export function positionOf(summary: UserSummary, order: UserOrder): UserPosition {
  if (order.key === "uid") return { uid: summary.uid };
  if (order.key === "name") return { uid: summary.uid, name: sortNameOf(summary.name) };
  return { uid: summary.uid, at: summary[order.key] };
}

/** The members a page reads, with the date its order needs to place each user. */
function withOrderMembers(members: SummaryMembers | null, order: UserOrder): SummaryMembers | null {
  if (members === null || order.key === "uid") return members;
  if (members.decoded.some(([name]) => name === order.key)) return members;
  return summaryMembers([...members.decoded.map(([name]) => name), order.key]);
}

/** Which users of a project a page selects, as a client gives it; `search` follows search-words.ts. */
export type UserListFilter = UsersFilter;

/** The filter as the page's SQL applies it (the search as its words). Throws VALIDATION_FAILED on an unsearchable search. */
const matchingUsersOf = (filter: UserListFilter): MatchingUsers => ({
  statusId: filter.statusId,
  excluded: filter.excluded,
  level: filter.level,
  searchWords: searchWordsOf(filter.search, ["filter", "search"]),
  updatedSince: filter.updatedSince,
  tagId: filter.tagId,
});

export interface UserPage {
  users: RegistrationRef[];
  /**
   * The summaries of `users`, read in the same statement. With `summaryMembers`, they hold only
   * those members and the identity (the others are absent): use them only for those.
   */
  summaries: UserSummary[];
  /** Users follow the page (after its last user, within `before`). */
  hasNextPage: boolean;
  /** Users precede the page (before its first user, within `after`). */
  hasPreviousPage: boolean;
  /**
   * How many users match the filter, when `withTotal` asked and the counters could tell or the
   * filter is a search alone (counted with the page); else null.
   */
  matchingTotal: number | null;
  /** matchingTotal is an estimate (a search alone with too many matches to count; see countUsers). */
  matchingTotalEstimated: boolean;
}

/**
 * Which page: forward (`size` users after `after`) or backward (the last `size` users before
 * `before`, still listed in the page's order). Both bounds may be given; null leaves that end open.
 */
export interface UserPageRequest {
  groupId: number;
  size: number;
  direction: "forward" | "backward";
  /** Absent: uid order, ascending. */
  order?: UserOrder;
  after: UserPosition | null;
  before: UserPosition | null;
  filter: UserListFilter;
  /** Only these summary members are read and decoded; null or absent: all of them. */
  summaryMembers?: SummaryMembers | null;
  /** Read the matching total with the page when the counters can tell it (a users page's totalCount). */
  withTotal?: boolean;
}

/**
 * A page of a project's users in uid order or the order asked (keyset: the cost does not depend on
 * how deep the page is), read forward or backward, with their summaries, in one statement that also checks that
 * the caller's organization owns the project and, with `withTotal`, reads how many users match
 * the filter from the project's counters when they can tell (see `matchingBucketsOf`).
 */
export async function listUsersPage(ctx: RequestContext, request: UserPageRequest): Promise<UserPage> {
  const { organizationId } = authorize(ctx, "read", { groupId: request.groupId });
  const size = Math.max(0, Math.trunc(request.size));
  const backward = request.direction === "backward";
  const order = request.order ?? UID_ORDER;
  // One row more than the page says whether another page lies beyond it in the reading direction.
  const read = await readSummaryPageInRange(
    ctx.em,
    organizationId,
    request.groupId,
    matchingUsersOf(request.filter),
    { after: request.after, before: request.before, limit: size + 1, fromEnd: backward, order },
    withOrderMembers(request.summaryMembers ?? null, order),
    request.withTotal ? matchingBucketsOf(request.filter) : null,
    request.withTotal === true,
  );
  if (!read.owned) throw notOwnedProject(request.groupId);
  const { rows } = read;
  const more = rows.length > size;
  const page = backward ? rows.slice(Math.max(0, rows.length - size)) : rows.slice(0, size);
  // The other side is known without a read: a cursor was given there, so at least that user was
  // beyond it when the cursor was issued (as Relay's connection spec allows).
  return {
    // A summary holds its registration's ref (its identity members): no copy of each.
    users: page,
    summaries: page,
    hasNextPage: backward ? request.before !== null : more,
    hasPreviousPage: backward ? more : request.after !== null,
    matchingTotal: read.matchingTotal,
    matchingTotalEstimated: read.matchingTotalEstimated,
  };
}

/**
 * How many users of a project match the filter (the page that asks has checked ownership): from
 * the project's counters (one row) unless the filter names a status or searches, which count. A
 * search alone whose matches are too many to count within a request is estimated (and says so).
 */
export async function countUsers(ctx: RequestContext, groupId: number, filter: UserListFilter): Promise<UserCount> {
  authorize(ctx, "read", { groupId });
  const buckets = matchingBucketsOf(filter);
  if (!buckets) return countMatchingUsers(ctx.em, groupId, matchingUsersOf(filter));
  const counters = (await readProjectCounters(ctx.em, { projectId: groupId })).get(groupId) ?? emptyCounters();
  return { total: registrationsIn(counters, buckets), estimated: false };
}
