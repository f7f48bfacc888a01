import {
  countUsers as countMatchingUsers,
  readSummaryPageAfter,
  refOfSummaryRow,
  type RegistrationRef,
  type SummaryPart,
  type UserListFilter,
} from "../../data/registrations.data";
import { requirePrincipal, type RequestContext } from "../context";
import { resolveOwnedProject } from "../group-scope";
import { summaryOf, type UserSummary } from "./user-summary";

// Listing a project's users. Nested user data (forms, values, emails, tags, children) is read in
// batches by the GraphQL loaders straight from src/data/, one statement per batch.

export type { RegistrationRef, SummaryPart, UserListFilter };

export interface UserPage {
  users: RegistrationRef[];
  /**
   * The summaries of `users`, read in the same statement. With `summaryParts`, only those parts
   * hold figures (the others read as zero): use them only for what the parts cover.
   */
  summaries: UserSummary[];
  hasNextPage: boolean;
}

/**
 * A page of a project's users in uid order, after a uid (keyset: the cost does not depend on how
 * deep the page is), with their summaries. Checks that the caller's organization owns the project:
 * the page statement only returns rows of an owned project, so only an empty page needs a second
 * statement to tell FORBIDDEN from "no users".
 */
export async function listUsersPage(
  ctx: RequestContext,
  request: {
    groupId: number;
    first: number;
    afterUid: number | null;
    filter: UserListFilter;
    summaryParts?: ReadonlySet<SummaryPart> | null;
  },
): Promise<UserPage> {
  const { organizationId } = requirePrincipal(ctx);
  // One row more than the page says whether another page follows.
  const limit = Math.max(0, Math.trunc(request.first)) + 1;
  const rows = await readSummaryPageAfter(
    ctx.em,
    organizationId,
    request.groupId,
    request.filter,
    request.afterUid,
    limit,
    request.summaryParts ?? null,
  );
  if (rows.length === 0) await resolveOwnedProject(ctx, request.groupId);
  const page = rows.slice(0, limit - 1);
  return { users: page.map(refOfSummaryRow), summaries: page.map(summaryOf), hasNextPage: rows.length === limit };
}

/** How many users of a project match the filter (the page that asks has checked ownership). */
export async function countUsers(ctx: RequestContext, groupId: number, filter: UserListFilter): Promise<number> {
  return countMatchingUsers(ctx.em, groupId, filter);
}
