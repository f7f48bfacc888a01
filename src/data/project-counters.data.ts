import type { EntityManager } from "typeorm";
import { cartLineAmountSql, paymentAmountSql } from "./account-sums";
import type { TotalsSelection } from "./projects.data";
import { decodeRows, selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";

// SQL of the per-project counters (table project_counter, one row per project). Every change is
// one INSERT … SELECT … upsert that ADDS what it selects to the row (`x = x + new.x`), never a
// read-modify-write, so several instances writing to one project stay exact: the row lock of
// the upsert orders them. What is added is computed from the registrations themselves by one
// SQL expression (`bucketSql`) that the recount uses too.

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
  const insert = `INSERT INTO project_counter (project_id, ${COLUMNS.join(", ")})\n${select}\n`;
  if (dialect === "sqlite")
    return `${insert} ON CONFLICT (project_id) DO UPDATE SET ${COLUMNS.map((c) => `${c} = project_counter.${c} + excluded.${c}`).join(", ")}`;
  return `${insert} ON DUPLICATE KEY UPDATE ${COLUMNS.map((c) => `${c} = ${c} + VALUES(${c})`).join(", ")}`;
}

/** Rows of whole registrations (count and money) joining their current bucket. */
const wholeRegistrationsSql = (where: string) =>
  `SELECT r.project_id, NULL AS bucket_from, ${bucketSql()} AS bucket_to, 1 AS registrations,
          ${ORDER_CENTS_OF_R} AS order_cents, ${PAID_CENTS_OF_R} AS paid_cents
     FROM ${REGISTRATION_FROM} WHERE ${where}`;

/** Adds the registrations (count and money) with the given uids to their projects' counters. */
export async function addRegistrationsToCounters(em: EntityManager, uids: readonly number[]): Promise<void> {
  if (uids.length === 0) return;
  await em.query(upsertSql(dialectOf(em), wholeRegistrationsSql(`r.uid IN (${sqlPlaceholders(uids.length)})`)), [
    ...uids,
  ]);
}

/**
 * Adds counts and cents computed by the caller to a project's row (`regapi seed`, which knows
 * every row it wrote): one statement of literal values, no read.
 */
export async function addDeltaToCounters(em: EntityManager, projectId: number, delta: ProjectCounters): Promise<void> {
  const values = COUNTER_BUCKETS.flatMap((bucket) => [
    delta[bucket].registrations,
    delta[bucket].orderCents,
    delta[bucket].paidCents,
  ]);
  const insert = `INSERT INTO project_counter (project_id, ${COLUMNS.join(", ")}) VALUES (${sqlPlaceholders(COLUMNS.length + 1)})`;
  await em.query(
    dialectOf(em) === "sqlite"
      ? `${insert} ON CONFLICT (project_id) DO UPDATE SET ${COLUMNS.map((c) => `${c} = project_counter.${c} + excluded.${c}`).join(", ")}`
      : `${insert} ON DUPLICATE KEY UPDATE ${COLUMNS.map((c) => `${c} = ${c} + VALUES(${c})`).join(", ")}`,
    [projectId, ...values],
  );
}

/** Adds order and paid cents to the bucket registration `uid` is in now. */
export async function addCentsToCounters(
  em: EntityManager,
  uid: number,
  cents: { orderCents: number; paidCents: number },
): Promise<void> {
  await em.query(
    upsertSql(
      dialectOf(em),
      `SELECT r.project_id, NULL AS bucket_from, ${bucketSql()} AS bucket_to, 0 AS registrations,
              ? AS order_cents, ? AS paid_cents
         FROM ${REGISTRATION_FROM} WHERE r.uid = ?`,
    ),
    [cents.orderCents, cents.paidCents, uid],
  );
}

/**
 * Moves registration `uid` and, for a parent, its children to the buckets they fall in once its
 * status becomes `statusId` (null: none). Run BEFORE the status changes. Nothing is written when
 * the new status excludes as much as the old one (no registration changes bucket).
 */
export async function moveFamilyForStatus(em: EntityManager, uid: number, statusId: number | null): Promise<void> {
  const newExcluded = `(SELECT COUNT(*) FROM status ns WHERE ns.id = ? AND ns.is_excluded = 1) = 1`;
  const change = (where: string, own: string, parent: string) =>
    `SELECT r.project_id, ${bucketSql()} AS bucket_from, ${bucketSql(own, parent)} AS bucket_to, 1 AS registrations,
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
  await em.query(upsertSql(dialectOf(em), `SELECT * FROM (${family}) f WHERE f.bucket_from <> f.bucket_to`), [
    statusId ?? 0,
    uid,
    statusId ?? 0,
    uid,
    uid,
  ]);
}

/** The projects a recount covers: one, or every project. */
export type RecountScope = { projectId: number } | "all";

/** Registrations counted per recount statement: each stays far below the statement time limit. */
const RECOUNT_SLICE = 25_000;

/** Runs one statement and returns its rows (an EntityManager's or a migration QueryRunner's `query`). */
export type RunStatement = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * Rebuilds the counters from the registrations, cart lines and payments: delete the rows, then
 * add the registrations slice by slice of uids (one upsert each), so no statement grows with the
 * project and a million registrations fit under the per-statement time limit. In one
 * transaction, the upserts' locking reads make concurrent writes to the project wait.
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

/** The counter columns of the counter row `alias`, for a statement that reads them with other data. */
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

/** SQL summing the registrations of `buckets` in the counter row `alias` (0 when the project has no row yet). */
export function registrationsInBucketsSql(alias: string, buckets: readonly CounterBucket[]): string {
  if (buckets.length === 0) return "0";
  return `COALESCE(${buckets.map((bucket) => `${alias}.${bucket}_registrations`).join(" + ")}, 0)`;
}

/** A project's counters, all zero when it has none (no registration yet). */
export const emptyCounters = (): ProjectCounters =>
  Object.fromEntries(
    COUNTER_BUCKETS.map((bucket) => [bucket, { registrations: 0, orderCents: 0, paidCents: 0 }]),
  ) as ProjectCounters;

/** The counters of the projects a totals read covers, by project id (absent: none yet). */
export async function readProjectCounters(
  em: EntityManager,
  selection: TotalsSelection,
): Promise<Map<number, ProjectCounters>> {
  let where: string;
  let parameter: number;
  if ("projectId" in selection) {
    where = "pc.project_id = ?";
    parameter = selection.projectId;
  } else {
    const archived =
      selection.scope === "active"
        ? " AND p.archived = 0"
        : selection.scope === "archived"
          ? " AND p.archived = 1"
          : "";
    where = `p.organization_id = ?${archived}`;
    parameter = selection.organizationId;
  }
  const rows = await selectRows(
    em,
    COUNTER_ROW,
    `SELECT pc.project_id, ${COLUMNS.map((c) => `pc.${c}`).join(", ")}
       FROM project_counter pc JOIN project p ON p.id = pc.project_id WHERE ${where}`,
    [parameter],
  );
  return new Map(rows.map((row) => [row.project_id, countersOf(row)]));
}

/** Every project id (the recount of all projects reports them). */
export async function readProjectIds(em: EntityManager): Promise<number[]> {
  return (await selectRows(em, { id: "int" }, `SELECT id FROM project ORDER BY id`, [])).map((row) => row.id);
}
