import { readSummaries } from "../../data/user-summary.data";
import type { ProjectCounters } from "../../data/project-counters.data";
import {
  countChanged,
  readChangedPage,
  readListPage,
  readListScope,
  readMatchingChildSummaries,
  type ExclusionFilter,
  type ListSelection,
} from "../../data/user-list.data";
import type { RequestContext } from "../context";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import { listTotalsOf } from "../projects/project-counters";
import { inTransaction } from "../transaction";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { UserListCommand } from "./read-commands";
import { readDetailSelection, readUserDetails, type DetailSelection, type UserDetails } from "./user-details";
import type { UserSummary } from "./user-summary";
import type { WalkPosition } from "./walk-positions";

// users get_user_list (contract §12, §18): 50 parents/individuals a page from a zero-based
// position, their matching children riding along, totals over all matching records.
//
// Pages at any depth: a position the server has handed out as next_starting_position is
// remembered with the uid that ended the page before it, so the next page starts there (keyset:
// the same cost at position 0 and at 1,000,000). Positions live in process memory, or in Redis
// with REDIS_URL so that every instance continues every walk (walk-positions.ts). A position
// never handed out (a jump, or one forgotten) is found by skipping that many entries of a
// covering index.
// total_users and totals come from the project's counters (one row); a walk carries the totals it
// started with along with its remembered positions, so its pages agree with each other.

export const RECORDS_PER_PAGE = 50;

/** How long a handed-out position (and its walk's totals) is remembered. */
export const WALK_MEMORY_MS = 10 * 60 * 1000;

export interface UserListQuery {
  groupId: number;
  exclusion: ExclusionFilter;
  onlyParents: boolean;
  onlyChildren: boolean;
  startingPosition: number;
  /**
   * Only registrations changed at or after this time (doc.modified_since), pages in (updated_at,
   * uid) order; children are records of their own then (with no only_* option, both levels).
   */
  modifiedSince?: Date | null;
  /** get_info selectors answered per record (contract §12). */
  selection: DetailSelection | null;
}

export interface ListTotals {
  totalUsers: number;
  totalActiveUsers: number;
  totalOrderCents: number;
  totalPaidCents: number;
}

export interface ListedUser {
  summary: UserSummary;
  /** The selectors' answers, when the list asked for any. */
  details: UserDetails | null;
  /** Children riding along (for a parent record; empty with only_parents/only_children). */
  children: ListedUser[];
}

export interface UserListPage {
  totalUsers: number;
  recordsPerPage: number;
  startingPosition: number;
  nextStartingPosition: number | null;
  totals: ListTotals;
  /** Top-level records of the page (parents/individuals, or children with only_children). */
  records: ListedUser[];
  /** Whether the page continued a remembered walk (keyset) rather than skipping to its position. */
  continuedWalk: boolean;
}

const walkKey = (query: UserListQuery, position: number) =>
  [
    query.groupId,
    query.exclusion,
    query.onlyParents,
    query.onlyChildren,
    ...(query.modifiedSince ? [`since${query.modifiedSince.getTime()}`] : []),
    position,
  ].join(":");

/** Reads one page. Throws FORBIDDEN for a project outside the caller's organization. */
export async function listUsers(ctx: RequestContext, query: UserListQuery): Promise<UserListPage> {
  const { organizationId } = authorize(ctx, "read", { groupId: query.groupId });
  const positions = ctx.state.walkPositions;
  // Asked before the transaction: a shared store's round trip holds no connection. Whether the
  // caller may read the project is still checked inside, before anything remembered is used.
  const remembered = query.startingPosition > 0 ? await positions.recall(walkKey(query, query.startingPosition)) : null;
  const selection: ListSelection = { groupId: query.groupId, exclusion: query.exclusion };
  const since = query.modifiedSince ?? null;
  // A page of the project's order: ownership, counters and the page with its summaries are one
  // statement, the children riding along one more (none without a transaction around them: a child
  // registered between the two shows under its parent, as it would on the next read). Changes
  // since a time: in one transaction, ownership and counters, the count, the page, its summaries.
  const { page, next } = since
    ? await inTransaction(ctx, "users.get_user_list", async ({ em }) => {
        const scope = await readListScope(em, organizationId, query.groupId);
        if (!scope.owned) throw notOwnedProject(query.groupId);
        return pageOf(em, query, selection, scope.counters, remembered, since);
      })
    : await (async () => {
        const { em } = ctx;
        const read = await readListPage(em, organizationId, selection, {
          level: query.onlyChildren ? "child" : "parent",
          afterUid: remembered?.afterUid ?? null,
          offset: query.startingPosition,
          limit: RECORDS_PER_PAGE + 1,
        });
        if (!read.owned) throw notOwnedProject(query.groupId);
        return pageOf(em, query, selection, read.counters, remembered, null, read.rows);
      })();
  // Remembered before the answer leaves, so the client's next request finds it on any instance.
  if (next && page.nextStartingPosition !== null)
    await positions.remember(walkKey(query, page.nextStartingPosition), next, WALK_MEMORY_MS);
  return page;
}

/**
 * The page, its children and its details from the counters and (a page of the project's order)
 * the page's rows already read, or (changes since a time) reading the page.
 */
async function pageOf(
  em: RequestContext["em"],
  query: UserListQuery,
  selection: ListSelection,
  counters: ProjectCounters,
  remembered: WalkPosition | null,
  since: Date | null,
  orderedRows: UserSummary[] = [],
): Promise<{ page: UserListPage; next: WalkPosition | null }> {
  let totalUsers: number;
  let totals: ListTotals;
  if (remembered) {
    ({ totalUsers, totals } = remembered);
  } else {
    const row = listTotalsOf(counters, query);
    totalUsers = row.topLevel;
    totals = {
      totalUsers: row.totalUsers,
      totalActiveUsers: row.totalActiveUsers,
      totalOrderCents: row.orderCents,
      totalPaidCents: row.paidCents,
    };
  }
  const level = query.onlyChildren ? "child" : query.onlyParents ? "parent" : "both";
  if (since && !remembered) totalUsers = await countChanged(em, selection, since, level);
  let readRows = orderedRows;
  let lastUpdatedAtMs: number | undefined;
  let moreRows = readRows.length > RECORDS_PER_PAGE;
  if (since) {
    // Changes since: the page is picked in (updated_at, uid) order, its summaries read for it.
    const picked = await readChangedPage(em, selection, {
      since,
      level,
      after:
        remembered?.afterUpdatedAtMs !== undefined
          ? { updatedAt: new Date(remembered.afterUpdatedAtMs), uid: remembered.afterUid }
          : null,
      offset: query.startingPosition,
      limit: RECORDS_PER_PAGE + 1,
    });
    moreRows = picked.length > RECORDS_PER_PAGE;
    const pagePicked = picked.slice(0, RECORDS_PER_PAGE);
    lastUpdatedAtMs = pagePicked.at(-1)?.updated_at.getTime();
    const byUid = new Map(
      (
        await readSummaries(
          em,
          pagePicked.map((row) => row.uid),
        )
      ).map((summary) => [summary.uid, summary]),
    );
    readRows = pagePicked.flatMap((row) => byUid.get(row.uid) ?? []);
  }
  const pageRows = readRows.slice(0, RECORDS_PER_PAGE);
  const children =
    query.onlyParents || query.onlyChildren || since
      ? []
      : await readMatchingChildSummaries(
          em,
          selection,
          pageRows.map((row) => row.cloginId),
        );
  const summaries = new Map([...pageRows, ...children].map((row) => [row.uid, row]));
  const summaryFor = (uid: number) => {
    const summary = summaries.get(uid);
    if (!summary) throw new Error(`registration ${uid} vanished while its page was read`);
    return summary;
  };
  const wanted = query.selection;
  const details =
    wanted && (wanted.system.size > 0 || wanted.fieldKeys.length > 0)
      ? await readUserDetails(em, query.groupId, [...summaries.values()], wanted)
      : null;
  const listed = (uid: number): ListedUser => ({
    summary: summaryFor(uid),
    details: details?.get(uid) ?? null,
    children: [],
  });
  const childrenOf = new Map<number, ListedUser[]>();
  for (const child of children) {
    const parent = child.parentCloginId ?? 0;
    const list = childrenOf.get(parent) ?? [];
    list.push(listed(child.uid));
    childrenOf.set(parent, list);
  }
  const records = pageRows.map((row) => ({ ...listed(row.uid), children: childrenOf.get(row.cloginId) ?? [] }));

  const nextStartingPosition = moreRows ? query.startingPosition + RECORDS_PER_PAGE : null;
  const next: WalkPosition | null =
    nextStartingPosition === null
      ? null
      : {
          afterUid: pageRows[pageRows.length - 1].uid,
          ...(lastUpdatedAtMs !== undefined ? { afterUpdatedAtMs: lastUpdatedAtMs } : {}),
          totalUsers,
          totals,
        };
  const page: UserListPage = {
    totalUsers,
    recordsPerPage: RECORDS_PER_PAGE,
    startingPosition: query.startingPosition,
    nextStartingPosition,
    totals,
    records,
    continuedWalk: remembered !== null,
  };
  return { page, next };
}

export interface UserListOutcome {
  page: UserListPage;
  command: UserListCommand;
  selection: DetailSelection;
}

/** users get_user_list from a command as sent. Throws VALIDATION_FAILED or FORBIDDEN. */
export async function getUserList(
  ctx: RequestContext,
  draft: CommandDraft<typeof UserListCommand>,
): Promise<UserListOutcome> {
  const command = parseCommand(UserListCommand, draft);
  const selection = readDetailSelection(command.selectors);
  const page = await listUsers(ctx, {
    groupId: command.groupId,
    // only_excluded is the narrower filter; sent with with_excluded, it wins.
    exclusion: command.onlyExcluded ? "only_excluded" : command.withExcluded ? "with_excluded" : "without_excluded",
    onlyParents: command.onlyParents,
    onlyChildren: command.onlyChildren,
    startingPosition: command.startingPosition,
    modifiedSince: command.modifiedSince,
    selection,
  });
  return { page, command, selection };
}
