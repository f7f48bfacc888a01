import { sqlDate } from "./events.data";
import type { EntityManager } from "typeorm";
import {
  counterColumnsSql,
  countersOfColumns,
  emptyCounters,
  projectCountersSql,
  type ProjectCounters,
} from "./project-counters.data";
import { readSummariesPicked } from "./user-summary.data";
import { decodeSummaries, summaryJoinsSql, summarySelectSql, type UserSummary } from "./user-projection";
import { selectRawRows, selectRows, sqlPlaceholders, type SqlFragment } from "./sql-rows";

const SUMMARY_JOINS = summaryJoinsSql(null);

// SQL of users get_user_list (contract §12, §18). Pages read only the registration table, in
// uid order, through the covering index (project_id, connected_to, uid, status_id): a page that
// continues a walk starts at a uid (keyset) and reads 50 index entries whatever its depth; a jump
// to a position the server has not handed out skips `offset` entries of that index.

/** Which registrations a list selects by status: the default leaves excluded ones out. */
export type ExclusionFilter = "without_excluded" | "with_excluded" | "only_excluded";

export interface ListSelection {
  groupId: number;
  exclusion: ExclusionFilter;
}

// The project's excluding statuses, named inside each statement that filters by them rather than
// read beforehand: a handful of rows of the (project_id, …) status index, and no statement of their own.
const EXCLUDING_STATUS_IDS = "SELECT xs.id FROM status xs WHERE xs.project_id = ? AND xs.is_excluded = 1";

/** The status condition on alias `alias`, with its parameters. */
function exclusionSql(alias: string, selection: ListSelection): { sql: string; parameters: number[] } {
  if (selection.exclusion === "with_excluded") return { sql: "1 = 1", parameters: [] };
  return selection.exclusion === "only_excluded"
    ? { sql: `${alias}.status_id IN (${EXCLUDING_STATUS_IDS})`, parameters: [selection.groupId] }
    : {
        sql: `(${alias}.status_id IS NULL OR ${alias}.status_id NOT IN (${EXCLUDING_STATUS_IDS}))`,
        parameters: [selection.groupId],
      };
}

/**
 * Whether the organization owns the project, and its counters, in one statement: `owned` false
 * for a foreign or missing project.
 */
export async function readListScope(
  em: EntityManager,
  organizationId: number,
  groupId: number,
): Promise<{ owned: boolean; counters: ProjectCounters }> {
  const sql = `SELECT ${counterColumnsSql("pc")}
       FROM project pr
       LEFT JOIN ${projectCountersSql} pc ON pc.project_id = pr.id
      WHERE pr.id = ? AND pr.organization_id = ?`;
  const raw = await selectRawRows(em, sql, [groupId, groupId, organizationId]);
  if (raw.length === 0) return { owned: false, counters: emptyCounters() };
  return { owned: true, counters: countersOfColumns(raw[0], sql) };
}

/** Where a page of top-level records starts: after a uid (a walk) or skipping `offset` records (a jump). */
export interface ListPageRange {
  level: "parent" | "child";
  afterUid: number | null;
  offset: number;
  limit: number;
}

/** The uids of one page of top-level records, picked on the covering index alone, with its parameters. */
function pagePickSql(selection: ListSelection, page: ListPageRange): SqlFragment {
  const status = exclusionSql("r", selection);
  const level = page.level === "parent" ? "r.connected_to IS NULL" : "r.connected_to IS NOT NULL";
  const keyset = page.afterUid === null ? "" : " AND r.uid > ?";
  const parameters: unknown[] = [selection.groupId, ...status.parameters];
  if (page.afterUid !== null) parameters.push(page.afterUid);
  const offset = page.afterUid === null && page.offset > 0 ? ` OFFSET ${Math.trunc(page.offset)}` : "";
  return {
    sql: `SELECT r.uid FROM registration r
      WHERE r.project_id = ? AND ${level} AND ${status.sql}${keyset}
      ORDER BY r.uid LIMIT ${Math.trunc(page.limit)}${offset}`,
    parameters,
  };
}

/** A page of top-level records as readListPage reads it. */
export interface ListPageRead {
  /** false: the project is not the organization's (or does not exist); the page is then empty. */
  owned: boolean;
  counters: ProjectCounters;
  /** The page's summaries in uid order. */
  rows: UserSummary[];
}

/**
 * One page of top-level records (parents/individuals, or children for only_children) with their
 * summaries, the project's ownership and its counters, in one statement: the project row is the
 * outer side (no row: not owned; one row without a registration: an empty page). The page is
 * picked on the covering index alone (a jump's OFFSET skips index entries), the summaries are
 * read for the picked rows only.
 */
export async function readListPage(
  em: EntityManager,
  organizationId: number,
  selection: ListSelection,
  page: ListPageRange,
): Promise<ListPageRead> {
  const pick = pagePickSql(selection, page);
  const sql = `SELECT pg.*, ${counterColumnsSql("pc")}
       FROM project pr
       LEFT JOIN ${projectCountersSql} pc ON pc.project_id = pr.id
       LEFT JOIN (SELECT ${summarySelectSql(em)}
                    FROM (${pick.sql}) pick JOIN registration r ON r.uid = pick.uid ${SUMMARY_JOINS}) pg ON 1 = 1
      WHERE pr.id = ? AND pr.organization_id = ?`;
  const raw = await selectRawRows(em, sql, [selection.groupId, ...pick.parameters, selection.groupId, organizationId]);
  if (raw.length === 0) return { owned: false, counters: emptyCounters(), rows: [] };
  const counters = countersOfColumns(raw[0], sql);
  // Ordered here: an outer ORDER BY would make MariaDB sort the derived page again in a temporary table.
  const rows = raw[0].uid == null ? [] : decodeSummaries(raw, sql, null).sort((a, b) => a.uid - b.uid);
  return { owned: true, counters, rows };
}

/** The summary rows of the children of the given parents that match the status filter themselves, in uid order. */
export async function readMatchingChildSummaries(
  em: EntityManager,
  selection: ListSelection,
  parentCloginIds: number[],
): Promise<UserSummary[]> {
  if (parentCloginIds.length === 0) return [];
  const status = exclusionSql("r", selection);
  return readSummariesPicked(
    em,
    `SELECT r.uid FROM registration r
      WHERE r.project_id = ? AND r.connected_to IN (${sqlPlaceholders(parentCloginIds.length)}) AND ${status.sql}`,
    [selection.groupId, ...parentCloginIds, ...status.parameters],
  );
}

const TOTALS_ROW = {
  top_level: "int",
  total_users: "int",
  total_active_users: "int",
  order_cents: "int",
  paid_cents: "int",
} as const;

/**
 * Counts and money over every record the filters select on all pages: matching parents, and
 * (unless `onlyParents`) matching children of matching parents; with `onlyChildren`, matching
 * children alone. `top_level` counts what pages are made of (parents, or children).
 */
export async function readListTotals(
  em: EntityManager,
  selection: ListSelection,
  scope: { onlyParents: boolean; onlyChildren: boolean },
) {
  const status = exclusionSql("r", selection);
  const parentStatus = exclusionSql("pr", selection);
  const active = exclusionSql("r", { ...selection, exclusion: "without_excluded" });
  let records: string;
  const parameters: unknown[] = [...active.parameters, selection.groupId, ...status.parameters];
  if (scope.onlyChildren) records = "r.connected_to IS NOT NULL";
  else if (scope.onlyParents) records = "r.connected_to IS NULL";
  else {
    records = `(r.connected_to IS NULL OR EXISTS (SELECT 1 FROM registration pr
                 WHERE pr.project_id = r.project_id AND pr.person_id = r.connected_to AND pr.connected_to IS NULL
                   AND ${parentStatus.sql}))`;
    parameters.push(...parentStatus.parameters);
  }
  const topLevel = scope.onlyChildren ? "r.connected_to IS NOT NULL" : "r.connected_to IS NULL";
  const rows = await selectRows(
    em,
    TOTALS_ROW,
    `SELECT COUNT(*) AS total_users,
            COALESCE(SUM(CASE WHEN ${topLevel} THEN 1 ELSE 0 END), 0) AS top_level,
            COALESCE(SUM(CASE WHEN ${active.sql} THEN 1 ELSE 0 END), 0) AS total_active_users,
            COALESCE(SUM((SELECT COALESCE(SUM(c.quantity * c.unit_price_cents), 0) FROM cart_line c
                            WHERE c.registration_id = r.uid)), 0) AS order_cents,
            COALESCE(SUM((SELECT COALESCE(SUM(pm.amount_cents), 0) FROM payment pm
                            WHERE pm.registration_id = r.uid)), 0) AS paid_cents
       FROM registration r
      WHERE r.project_id = ? AND ${status.sql} AND ${records}`,
    parameters,
  );
  return rows[0];
}

/** Which registrations a changes-since page holds: parents and individuals, children, or both. */
export type ChangedLevel = "parent" | "child" | "both";

const levelSql = (level: ChangedLevel) =>
  level === "parent" ? " AND r.connected_to IS NULL" : level === "child" ? " AND r.connected_to IS NOT NULL" : "";

/** The index a changes-since page reads on MySQL/MariaDB: (project_id, updated_at, uid, connected_to, status_id). */
const changedIndexHint = (em: EntityManager) =>
  em.connection.options.type === "better-sqlite3" ? "" : "FORCE INDEX (IDX_registration_updated)";

/**
 * One page of registrations changed at or after `since`, in (updated_at, uid) order: after a
 * (updated_at, uid) key (a walk) or skipping `offset` of them (a jump). The page is read off the
 * covering index (project_id, updated_at, uid, connected_to, status_id): a walk's page costs the
 * same however many registrations the project has and however many changed.
 */
export async function readChangedPage(
  em: EntityManager,
  selection: ListSelection,
  page: {
    since: Date;
    level: ChangedLevel;
    after: { updatedAt: Date; uid: number } | null;
    offset: number;
    limit: number;
  },
): Promise<{ uid: number; updated_at: Date }[]> {
  const status = exclusionSql("r", selection);
  const parameters: unknown[] = [selection.groupId, sqlDate(em, page.since), ...status.parameters];
  let keyset = "";
  if (page.after) {
    keyset = " AND (r.updated_at > ? OR (r.updated_at = ? AND r.uid > ?))";
    const at = sqlDate(em, page.after.updatedAt);
    parameters.push(at, at, page.after.uid);
  }
  const offset = page.after === null && page.offset > 0 ? ` OFFSET ${Math.trunc(page.offset)}` : "";
  return selectRows(
    em,
    { uid: "int", updated_at: "date" },
    `SELECT r.uid, r.updated_at FROM registration r ${changedIndexHint(em)}
      WHERE r.project_id = ? AND r.updated_at >= ? AND ${status.sql}${levelSql(page.level)}${keyset}
      ORDER BY r.updated_at, r.uid LIMIT ${Math.max(0, Math.trunc(page.limit))}${offset}`,
    parameters,
  );
}

/** How many registrations of the level changed at or after `since` (counted on the same index). */
export async function countChanged(
  em: EntityManager,
  selection: ListSelection,
  since: Date,
  level: ChangedLevel,
): Promise<number> {
  const status = exclusionSql("r", selection);
  const rows = await selectRows(
    em,
    { n: "int" },
    `SELECT COUNT(*) AS n FROM registration r ${changedIndexHint(em)}
      WHERE r.project_id = ? AND r.updated_at >= ? AND ${status.sql}${levelSql(level)}`,
    [selection.groupId, sqlDate(em, since), ...status.parameters],
  );
  return rows[0]?.n ?? 0;
}
