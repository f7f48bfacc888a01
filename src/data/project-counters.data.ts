import type { EntityManager } from "typeorm";
import { cartLineAmountSql, paymentAmountSql } from "./account-sums";
import {
  PROJECT_COLUMNS_SQL,
  projectOfColumns,
  type ArchivedScope,
  type ProjectRecord,
  type TotalsSelection,
} from "./projects.data";
import { decodeRows, selectRawRows, selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";

// SQL of the per-project counters (table project_counter: COUNTER_SLOTS rows per project, summed
// on read). A write adds a delta its transaction computed from what it wrote itself (literal
// values, `x = x + new.x`) to one slot, as the last statement before COMMIT: no statement of a
// write reads rows other transactions are writing (an INSERT … SELECT over registrations or cart
// lines takes shared next-key locks that made concurrent creates deadlock), and concurrent writes
// to one project spread over the slots instead of queueing on one row. The recount and the
// bucket moves of set_status compute buckets with one SQL expression (`bucketSql`); its
// TypeScript twin for writes that know their rows is `bucketOf` (src/domain/projects).

/** The six buckets a registration counts in, in column order. */
export const COUNTER_BUCKETS = [
  "parent_active",
  "parent_excluded",
  "child_active",
  "child_excluded",
  "orphan_active",
  "orphan_excluded",
] as const;
export type CounterBucket = (typeof COUNTER_BUCKETS)[number];

export interface BucketTotals {
  registrations: number;
  orderCents: number;
  paidCents: number;
}
export type ProjectCounters = Record<CounterBucket, BucketTotals>;

/**
 * Rows per project a write picks its slot among. More slots, fewer writes waiting for one row
 * (and, on Galera, fewer certification conflicts between nodes); reads sum them all.
 * BENCHMARKS.md ("Registration day") has the measurements behind the number.
 */
export const COUNTER_SLOTS = 16;

const MEASURES = ["registrations", "order_cents", "paid_cents"] as const;
const COLUMNS = COUNTER_BUCKETS.flatMap((bucket) => MEASURES.map((measure) => `${bucket}_${measure}`));

/**
 * The bucket number (index in COUNTER_BUCKETS) of registration `r` with status `s`, parent
 * registration `pr` and parent status `ps`; a registration's or parent's exclusion may be
 * overridden (the status a set_status is about to give) by `ownExcluded` / `parentExcluded`.
 */
function bucketSql(ownExcluded = statusExcludedSql("s"), parentExcluded = statusExcludedSql("ps")): string {
  // Each override appears once, so its parameters bind once.
  return `((CASE WHEN ${ownExcluded} THEN 1 ELSE 0 END)
           + (CASE WHEN r.connected_to IS NULL THEN 0 ELSE 2 + (CASE WHEN ${parentExcluded} THEN 2 ELSE 0 END) END))`;
}

const REGISTRATION_FROM = `registration r
  LEFT JOIN status s ON s.id = r.status_id
  LEFT JOIN registration pr ON pr.project_id = r.project_id AND pr.person_id = r.connected_to
  LEFT JOIN status ps ON ps.id = pr.status_id`;

const ORDER_CENTS_OF_R = `(SELECT COALESCE(SUM(${cartLineAmountSql("c")}), 0) FROM cart_line c WHERE c.registration_id = r.uid)`;
const PAID_CENTS_OF_R = `(SELECT COALESCE(SUM(${paymentAmountSql("pm")}), 0) FROM payment pm WHERE pm.registration_id = r.uid)`;

export type Dialect = "sqlite" | "mysql";
const dialectOf = (em: EntityManager): Dialect =>
  em.dataSource.options.type === "better-sqlite3" ? "sqlite" : "mysql";

/**
 * The upsert adding, per project, what `changesSql` selects: rows of (project_id, bucket_from,
 * bucket_to, registrations, order_cents, paid_cents) — each row's measures leave bucket_from
 * (NULL: nowhere) and join bucket_to (NULL: nowhere).
 */
function upsertSql(dialect: Dialect, changesSql: string): string {
  const sums = COUNTER_BUCKETS.flatMap((_, index) =>
    MEASURES.map(
      (measure) =>
        `SUM(CASE WHEN t.bucket_to = ${index} THEN t.${measure} ELSE 0 END) - SUM(CASE WHEN t.bucket_from = ${index} THEN t.${measure} ELSE 0 END)`,
    ),
  );
  const select = `SELECT t.project_id, ${sums.join(",\n ")}
    FROM (${changesSql}) t WHERE 1 = 1 GROUP BY t.project_id`;
  // No slot column: the recount writes slot 0, the column's default. The migration that created the
  // table (ProjectCounters, before there were slots) backfills with this statement too.
  return `INSERT INTO project_counter (project_id, ${COLUMNS.join(", ")})\n${select}\n${addOnConflict(dialect)}`;
}

/** The clause that adds a new row's measures to an existing slot's. */
const addOnConflict = (dialect: Dialect) =>
  dialect === "sqlite"
    ? `ON CONFLICT (project_id, slot) DO UPDATE SET ${COLUMNS.map((c) => `${c} = project_counter.${c} + excluded.${c}`).join(", ")}`
    : `ON DUPLICATE KEY UPDATE ${COLUMNS.map((c) => `${c} = ${c} + VALUES(${c})`).join(", ")}`;

/** Rows of whole registrations (count and money) joining their current bucket. */
const wholeRegistrationsSql = (where: string) =>
  `SELECT r.project_id, NULL AS bucket_from, ${bucketSql()} AS bucket_to, 1 AS registrations,
          ${ORDER_CENTS_OF_R} AS order_cents, ${PAID_CENTS_OF_R} AS paid_cents
     FROM ${REGISTRATION_FROM} WHERE ${where}`;

/** A delta a transaction adds to one slot of a project's counters. */
export interface SlotDelta {
  projectId: number;
  slot: number;
  delta: ProjectCounters;
}

/**
 * Adds deltas computed by the caller (from the rows it wrote) to counter slots: one statement of
 * literal values, however many projects, and no read. A slot row missing yet is created.
 */
export async function addToCounterSlots(em: EntityManager, deltas: readonly SlotDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const tuple = `(${sqlPlaceholders(COLUMNS.length + 2)})`;
  const parameters = deltas.flatMap(({ projectId, slot, delta }) => [
    projectId,
    slot,
    ...COUNTER_BUCKETS.flatMap((bucket) => [
      delta[bucket].registrations,
      delta[bucket].orderCents,
      delta[bucket].paidCents,
    ]),
  ]);
  await em.query(
    `INSERT INTO project_counter (project_id, slot, ${COLUMNS.join(", ")})
     VALUES ${deltas.map(() => tuple).join(", ")}
     ${addOnConflict(dialectOf(em))}`,
    parameters,
  );
}

/** A registration (with its money) leaving one bucket for another. */
export interface BucketMove {
  projectId: number;
  from: CounterBucket;
  to: CounterBucket;
  orderCents: number;
  paidCents: number;
}

const MOVE_ROW = {
  project_id: "int",
  bucket_from: "int",
  bucket_to: "int",
  order_cents: "int",
  paid_cents: "int",
} as const;

/**
 * The registrations that change bucket when registration `uid` gets status `statusId` (null:
 * none): itself and, for a parent, its children, with their money. A plain read: the caller holds
 * the family's lock (the registration's row, and a child's parent), so no write of the family can
 * commit between this read and its own.
 */
export async function readStatusMoves(em: EntityManager, uid: number, statusId: number | null): Promise<BucketMove[]> {
  const newExcluded = `(SELECT COUNT(*) FROM status ns WHERE ns.id = ? AND ns.is_excluded = 1) = 1`;
  const change = (where: string, own: string, parent: string) =>
    `SELECT r.project_id, ${bucketSql()} AS bucket_from, ${bucketSql(own, parent)} AS bucket_to,
            ${ORDER_CENTS_OF_R} AS order_cents, ${PAID_CENTS_OF_R} AS paid_cents
       FROM ${REGISTRATION_FROM} WHERE ${where}`;
  // Two branches rather than an OR, so each seeks its own index (the registration; the parent's children).
  const family = `${change("r.uid = ?", newExcluded, statusExcludedSql("ps"))}
    UNION ALL
    ${change(
      `r.project_id = (SELECT g.project_id FROM registration g WHERE g.uid = ?)
        AND r.connected_to = (SELECT g.person_id FROM registration g WHERE g.uid = ? AND g.connected_to IS NULL)`,
      statusExcludedSql("s"),
      newExcluded,
    )}`;
  const rows = await selectRows(em, MOVE_ROW, `SELECT * FROM (${family}) f WHERE f.bucket_from <> f.bucket_to`, [
    statusId ?? 0,
    uid,
    statusId ?? 0,
    uid,
    uid,
  ]);
  return rows.map((row) => ({
    projectId: row.project_id,
    from: COUNTER_BUCKETS[row.bucket_from],
    to: COUNTER_BUCKETS[row.bucket_to],
    orderCents: row.order_cents,
    paidCents: row.paid_cents,
  }));
}

/** The projects a recount covers: one, or every project. */
export type RecountScope = { projectId: number } | "all";

/** Registrations counted per recount statement: each stays far below the statement time limit. */
const RECOUNT_SLICE = 25_000;

/** Runs one statement and returns its rows (an EntityManager's or a migration QueryRunner's `query`). */
export type RunStatement = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * Rebuilds the counters from the registrations, cart lines and payments: delete the rows, then
 * add the registrations slice by slice of uids into slot 0 (one INSERT … SELECT each), so no
 * statement grows with the project and a million registrations fit under the per-statement time
 * limit. In one transaction, its locking reads make concurrent writes to the project wait: an
 * administrative operation, not one of the API's writes.
 */
export async function recountCounters(em: EntityManager, scope: RecountScope): Promise<void> {
  await recountWith((sql, parameters) => em.query(sql, parameters), dialectOf(em), scope);
}

/** The recount through any statement runner (the migration backfills with it on MySQL/MariaDB). */
export async function recountWith(run: RunStatement, dialect: Dialect, scope: RecountScope): Promise<void> {
  const inScope = scope === "all" ? "1 = 1" : "r.project_id = ?";
  const scopeParameters = scope === "all" ? [] : [scope.projectId];
  await run(
    scope === "all" ? `DELETE FROM project_counter` : `DELETE FROM project_counter WHERE project_id = ?`,
    scopeParameters,
  );
  const [bounds] = (await run(
    `SELECT MIN(r.uid) AS first_uid, MAX(r.uid) AS last_uid FROM registration r WHERE ${inScope}`,
    scopeParameters,
  )) as { first_uid: number | string | null; last_uid: number | string | null }[];
  if (bounds?.first_uid == null || bounds.last_uid == null) return;
  const last = Number(bounds.last_uid);
  for (let from = Number(bounds.first_uid); from <= last; from += RECOUNT_SLICE) {
    await run(upsertSql(dialect, wholeRegistrationsSql(`r.uid BETWEEN ? AND ? AND ${inScope}`)), [
      from,
      from + RECOUNT_SLICE - 1,
      ...scopeParameters,
    ]);
  }
}

const COUNTER_ROW = Object.fromEntries([["project_id", "int"], ...COLUMNS.map((column) => [column, "int"])]) as Record<
  string,
  "int"
>;

const COUNTER_COLUMNS_ROW = Object.fromEntries(COLUMNS.map((column) => [column, "int"])) as Record<string, "int">;

const SUMMED_COLUMNS = COLUMNS.map((column) => `SUM(${column}) AS ${column}`).join(", ");

/**
 * A derived table of one project's counters (its slots summed), for a statement that reads them
 * with other data: `LEFT JOIN ${projectCountersSql} pc ON pc.project_id = …`, with the project id
 * bound at the `?`. No row when the project has no counters yet.
 */
export const projectCountersSql = `(SELECT project_id, ${SUMMED_COLUMNS} FROM project_counter WHERE project_id = ? GROUP BY project_id)`;

/** The counter columns of the derived table `alias` (projectCountersSql). */
export const counterColumnsSql = (alias: string): string => COLUMNS.map((column) => `${alias}.${column}`).join(", ");

/** The counters a row read with counterColumnsSql holds; NULLs (a project without a counter row yet) read as zero. */
export function countersOfColumns(raw: Record<string, unknown>, sql = ""): ProjectCounters {
  return countersOf(decodeRows(COUNTER_COLUMNS_ROW, [raw], sql)[0]);
}

// Column names per bucket built once: every totals read maps each of its rows through them.
const BUCKET_COLUMNS = COUNTER_BUCKETS.map(
  (bucket) => [bucket, `${bucket}_registrations`, `${bucket}_order_cents`, `${bucket}_paid_cents`] as const,
);

function countersOf(row: RowOf<typeof COUNTER_COLUMNS_ROW>): ProjectCounters {
  const counters = {} as ProjectCounters;
  for (const [bucket, registrations, orderCents, paidCents] of BUCKET_COLUMNS)
    counters[bucket] = { registrations: row[registrations], orderCents: row[orderCents], paidCents: row[paidCents] };
  return counters;
}

/**
 * SQL summing the registrations of `buckets` over the counter slots of project `projectIdSql` (a
 * column of the outer statement); 0 when the project has no counters yet.
 */
export function registrationsInBucketsSql(projectIdSql: string, buckets: readonly CounterBucket[]): string {
  if (buckets.length === 0) return "0";
  return `(SELECT COALESCE(SUM(${buckets.map((bucket) => `pcs.${bucket}_registrations`).join(" + ")}), 0)
             FROM project_counter pcs WHERE pcs.project_id = ${projectIdSql})`;
}

/** A project's counters, all zero when it has none (no registration yet). */
export const emptyCounters = (): ProjectCounters =>
  Object.fromEntries(
    COUNTER_BUCKETS.map((bucket) => [bucket, { registrations: 0, orderCents: 0, paidCents: 0 }]),
  ) as ProjectCounters;

/** Which projects a totals read covers, on project alias `alias`, with its one parameter. */
function totalsWhere(selection: TotalsSelection, alias: string): { where: string; parameter: number } {
  if ("projectId" in selection) return { where: `${alias}.id = ?`, parameter: selection.projectId };
  const archived =
    selection.scope === "active"
      ? ` AND ${alias}.archived = 0`
      : selection.scope === "archived"
        ? ` AND ${alias}.archived = 1`
        : "";
  return { where: `${alias}.organization_id = ?${archived}`, parameter: selection.organizationId };
}

/** The counters of the projects a totals read covers, by project id (absent: none yet). */
export async function readProjectCounters(
  em: EntityManager,
  selection: TotalsSelection,
): Promise<Map<number, ProjectCounters>> {
  const { where, parameter } = totalsWhere(selection, "p");
  const rows = await selectRows(
    em,
    COUNTER_ROW,
    `SELECT pc.project_id, ${SUMMED_COLUMNS}
       FROM project_counter pc JOIN project p ON p.id = pc.project_id WHERE ${where} GROUP BY pc.project_id`,
    [parameter],
  );
  return new Map(rows.map((row) => [row.project_id, countersOf(row)]));
}

/**
 * The organization's projects in scope by id, each with its counters (all zero without any), in
 * one statement: the projects outer-joined to their summed counter slots.
 */
export async function readProjectsWithCounters(
  em: EntityManager,
  organizationId: number,
  scope: ArchivedScope,
): Promise<{ project: ProjectRecord; counters: ProjectCounters }[]> {
  const projects = totalsWhere({ organizationId, scope }, "p");
  const counted = totalsWhere({ organizationId, scope }, "cp");
  const sql = `SELECT ${PROJECT_COLUMNS_SQL}, ${counterColumnsSql("pc")}
       FROM project p
       LEFT JOIN (SELECT c.project_id, ${SUMMED_COLUMNS}
                    FROM project_counter c JOIN project cp ON cp.id = c.project_id
                   WHERE ${counted.where} GROUP BY c.project_id) pc ON pc.project_id = p.id
      WHERE ${projects.where} ORDER BY p.id`;
  const raw = await selectRawRows(em, sql, [counted.parameter, projects.parameter]);
  return raw.map((row) => ({ project: projectOfColumns(row, sql), counters: countersOfColumns(row, sql) }));
}

/** Every project id (the recount of all projects reports them). */
export async function readProjectIds(em: EntityManager): Promise<number[]> {
  return (await selectRows(em, { id: "int" }, `SELECT id FROM project ORDER BY id`, [])).map((row) => row.id);
}
