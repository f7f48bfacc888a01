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
import type { UserSummary } from "./user-projection";
import { decodeRows, selectRawRows, selectRows, sqlPlaceholders } from "./sql-rows";

// SQL of users get_user_list (contract §12, §18). Pages read only the registration table, in
// uid order, through the covering index (project_id, connected_to, uid, status_id): a page that
// continues a walk starts at a uid (keyset) and reads 50 index entries whatever its depth; a jump
// to a position the server has not handed out skips `offset` entries of that index.

/** Which registrations a list selects by status: the default leaves excluded ones out. */
export type ExclusionFilter = "without_excluded" | "with_excluded" | "only_excluded";

export interface ListSelection {
  groupId: number;
  exclusion: ExclusionFilter;
  /** The project's excluding status ids (read once per call: a handful). */
  excludingStatusIds: readonly number[];
}

/** The status condition on alias `alias`, with its parameters. */
function exclusionSql(alias: string, selection: ListSelection): { sql: string; parameters: number[] } {
  const ids = selection.excludingStatusIds;
  if (selection.exclusion === "with_excluded") return { sql: "1 = 1", parameters: [] };
  if (ids.length === 0) return { sql: selection.exclusion === "only_excluded" ? "1 = 0" : "1 = 1", parameters: [] };
  const list = sqlPlaceholders(ids.length);
  return selection.exclusion === "only_excluded"
    ? { sql: `${alias}.status_id IN (${list})`, parameters: [...ids] }
    : { sql: `(${alias}.status_id IS NULL OR ${alias}.status_id NOT IN (${list}))`, parameters: [...ids] };
}

export async function readExcludingStatusIds(em: EntityManager, groupId: number): Promise<number[]> {
  const rows = await selectRows(em, { id: "int" }, `SELECT id FROM status WHERE project_id = ? AND is_excluded = 1`, [
    groupId,
  ]);
  return rows.map((row) => row.id);
}

/**
 * Whether the organization owns the project, its excluding status ids and its counters, in one
 * statement: `owned` false for a foreign or missing project.
 */
export async function readListScope(
  em: EntityManager,
  organizationId: number,
  groupId: number,
): Promise<{ owned: boolean; excludingStatusIds: number[]; counters: ProjectCounters }> {
  const sql = `SELECT s.id AS status_id, ${counterColumnsSql("pc")}
       FROM project pr
       LEFT JOIN ${projectCountersSql} pc ON pc.project_id = pr.id
       LEFT JOIN status s ON s.project_id = pr.id AND s.is_excluded = 1
      WHERE pr.id = ? AND pr.organization_id = ?`;
  const raw = await selectRawRows(em, sql, [groupId, groupId, organizationId]);
  if (raw.length === 0) return { owned: false, excludingStatusIds: [], counters: emptyCounters() };
  const statuses = decodeRows({ status_id: "intOrNull" }, raw, sql);
  return {
    owned: true,
    excludingStatusIds: statuses.flatMap((row) => (row.status_id == null ? [] : [row.status_id])),
    counters: countersOfColumns(raw[0], sql),
  };
}

/**
 * The summary rows of one page of top-level records (parents/individuals, or children for
 * only_children) in uid order: after `afterUid` (a walk) or skipping `offset` matching records (a
 * jump). The page is picked on the covering index alone (a jump's OFFSET skips index entries),
 * the summaries are read for the picked rows only, in the same statement.
 */
export async function readListPageSummaries(
  em: EntityManager,
  selection: ListSelection,
  page: { level: "parent" | "child"; afterUid: number | null; offset: number; limit: number },
): Promise<UserSummary[]> {
  const status = exclusionSql("r", selection);
  const level = page.level === "parent" ? "r.connected_to IS NULL" : "r.connected_to IS NOT NULL";
  const keyset = page.afterUid === null ? "" : " AND r.uid > ?";
  const parameters: unknown[] = [selection.groupId, ...status.parameters];
  if (page.afterUid !== null) parameters.push(page.afterUid);
  const offset = page.afterUid === null && page.offset > 0 ? ` OFFSET ${Math.trunc(page.offset)}` : "";
  return readSummariesPicked(
    em,
    `SELECT r.uid FROM registration r
      WHERE r.project_id = ? AND ${level} AND ${status.sql}${keyset}
      ORDER BY r.uid LIMIT ${Math.trunc(page.limit)}${offset}`,
    parameters,
  );
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
