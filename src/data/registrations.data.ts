import { sqlDate } from "./events.data";
import type { EntityManager } from "typeorm";
import { Registration } from "../entities";
import { executeWrite, insertRowReturningId } from "../db/insert-rows";
import { isUniqueViolation } from "../db/unique-violation";
import { cartLineAmountSql, paymentAmountSql } from "./account-sums";
import { chunked } from "./batch";
import { registrationsInBucketsSql, type CounterBucket } from "./project-counters.data";
import {
  assertColumns,
  decodeColumn,
  jsonObjectsSql,
  selectRawRows,
  selectRows,
  sqlPlaceholders,
  type RowOf,
} from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";
import {
  decodeRegistrationLists,
  registrationListsSql,
  type RegistrationLists,
  type RegistrationListsWanted,
} from "./registration-lists.data";

// Registrations (users of a project): who they are, their lists and summaries, their tags.

/** Who a registration is: enough to place it, the rest is read on demand. */
export interface RegistrationRef {
  uid: number;
  groupId: number;
  cloginId: number;
  /** The parent's clogin_id for a child in a family project, else null. */
  parentCloginId: number | null;
}

/** A registration with the person data the users operations need. */
export interface RegisteredUser extends RegistrationRef {
  mainEmail: string | null;
  /** Its status excludes it (docs/counters.md): with `parentExcluded`, its counter bucket. */
  excluded: boolean;
  /** A child whose parent's status excludes the parent; false for a parent or individual. */
  parentExcluded: boolean;
}

/** A registration in a project, addressed by the wire pair (group_id, clogin_id). */
export interface ProjectPersonKey {
  groupId: number;
  cloginId: number;
}

export const projectPersonKey = (key: ProjectPersonKey) => `${key.groupId}:${key.cloginId}`;

export interface TagRecord {
  id: number;
  name: string;
}

const REF_COLUMNS = "r.uid, r.project_id, r.person_id, r.connected_to";
const REF_SHAPE = { uid: "int", project_id: "int", person_id: "int", connected_to: "intOrNull" } as const;

const toRef = (row: RowOf<typeof REF_SHAPE>): RegistrationRef => ({
  uid: row.uid,
  groupId: row.project_id,
  cloginId: row.person_id,
  parentCloginId: row.connected_to,
});

const onSqlite = (em: EntityManager) => em.connection.options.type === "better-sqlite3";

// Whether status `statusIdSql` excludes: a scalar subquery, so a locking read of the registration
// does not lock the status row that every registration with that status shares.
const excludedByStatusSql = (statusIdSql: string) =>
  `COALESCE((SELECT st.is_excluded FROM status st WHERE st.id = ${statusIdSql}), 0)`;

/**
 * The registration of a person in a project with the person's main email and the exclusions of
 * its counter bucket, or null. With `lock` (MySQL/MariaDB; SQLite's transactions already take
 * turns), the statement locks the family of the registration, in the one order every write takes
 * (docs/counters.md, "Locks"): the registration's row, then its person's, then, for a child, its
 * parent's registration. Writes to one family then run one after the other, and read each other's
 * results: a trigger cannot fire twice because two calls both saw it unfired, and the counter
 * bucket of a child cannot change under a write to it.
 */
export async function findRegisteredUser(
  em: EntityManager,
  projectId: number,
  personId: number,
  options: { lock?: boolean } = {},
): Promise<RegisteredUser | null> {
  const forUpdate = options.lock && !onSqlite(em) ? " FOR UPDATE" : "";
  const [row] = await selectRows(
    em,
    { ...REF_SHAPE, main_email: "textOrNull", excluded: "flag", parent_excluded: "flag" },
    `SELECT ${REF_COLUMNS}, p.main_email, ${excludedByStatusSql("r.status_id")} AS excluded,
            ${excludedByStatusSql("pr.status_id")} AS parent_excluded
       FROM registration r JOIN person p ON p.id = r.person_id
       LEFT JOIN registration pr ON pr.project_id = r.project_id AND pr.person_id = r.connected_to
      WHERE r.project_id = ? AND r.person_id = ?${forUpdate}`,
    [projectId, personId],
  );
  return row
    ? { ...toRef(row), mainEmail: row.main_email, excluded: row.excluded, parentExcluded: row.parent_excluded }
    : null;
}

export async function isRegistered(em: EntityManager, projectId: number, personId: number): Promise<boolean> {
  const rows = await selectRows(
    em,
    { uid: "int" },
    `SELECT uid FROM registration WHERE project_id = ? AND person_id = ?`,
    [projectId, personId],
  );
  return rows.length > 0;
}

/**
 * Inserts a registration without status, star or assigned admin; returns its uid, or null when
 * the person is registered in the project already (the unique index on (project_id, person_id)).
 */
export async function insertRegistration(
  em: EntityManager,
  registration: {
    projectId: number;
    personId: number;
    connectedTo: number | null;
    applicationDate: Date;
    updatedAt: Date;
  },
): Promise<number | null> {
  try {
    return await insertRowReturningId(em, Registration, {
      ...registration,
      statusId: null,
      star: false,
      assignedAdminId: null,
      updatedAt: registration.updatedAt,
    });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Registrations by (group_id, clogin_id), e.g. the parents of children. */
export async function readRegistrationsByPerson(
  em: EntityManager,
  keys: readonly ProjectPersonKey[],
): Promise<Map<string, RegistrationRef>> {
  const refs = await readByProjectAndColumn(em, "person_id", keys);
  return new Map(refs.map((ref) => [projectPersonKey(ref), ref]));
}

// `(project_id = ? AND column IN (…)) OR …`, one group per project: row-value IN lists are not portable.
function projectAndColumnClause(
  column: "person_id" | "connected_to",
  keys: readonly ProjectPersonKey[],
): { clause: string; parameters: number[] } {
  const byProject = new Map<number, Set<number>>();
  for (const key of keys) {
    const set = byProject.get(key.groupId) ?? new Set<number>();
    set.add(key.cloginId);
    byProject.set(key.groupId, set);
  }
  const clauses: string[] = [];
  const parameters: number[] = [];
  for (const [groupId, ids] of byProject) {
    clauses.push(`(r.project_id = ? AND r.${column} IN (${sqlPlaceholders(ids.size)}))`);
    parameters.push(groupId, ...ids);
  }
  return { clause: clauses.join(" OR "), parameters };
}

async function readByProjectAndColumn(
  em: EntityManager,
  column: "person_id" | "connected_to",
  keys: readonly ProjectPersonKey[],
): Promise<RegistrationRef[]> {
  const { clause, parameters } = projectAndColumnClause(column, keys);
  if (!clause) return [];
  const rows = await selectRows(
    em,
    REF_SHAPE,
    `SELECT ${REF_COLUMNS} FROM registration r WHERE ${clause} ORDER BY r.uid`,
    parameters,
  );
  return rows.map(toRef);
}

/** Which users of a project a list selects. Absent members do not filter. */
export interface UserListFilter {
  /** A status id; 0 selects users without a status (as the legacy `status_id` "0"). */
  statusId?: number | null;
  /** true: only users whose status is excluding; false: only the others. */
  excluded?: boolean | null;
  /** `parent`: parents and individuals (no connected_to); `child`: children of a family project. */
  level?: "parent" | "child" | null;
  /** Case-insensitive substring of first name, last name, username or main email. */
  search?: string | null;
  /** Only registrations changed at or after this time (their updated_at). */
  updatedSince?: Date | null;
}

const searchTermOf = (filter: UserListFilter): string => filter.search?.trim().toLowerCase() ?? "";

function filterSql(
  em: EntityManager,
  groupId: number,
  filter: UserListFilter,
): { where: string; parameters: unknown[] } {
  const conditions = ["r.project_id = ?"];
  const parameters: unknown[] = [groupId];
  if (filter.updatedSince) {
    conditions.push("r.updated_at >= ?");
    parameters.push(sqlDate(em, filter.updatedSince));
  }
  if (filter.statusId === 0) conditions.push("r.status_id IS NULL");
  else if (filter.statusId != null) {
    conditions.push("r.status_id = ?");
    parameters.push(filter.statusId);
  }
  if (filter.excluded != null) conditions.push(statusExcludedSql("s", filter.excluded));
  if (filter.level === "parent") conditions.push("r.connected_to IS NULL");
  if (filter.level === "child") conditions.push("r.connected_to IS NOT NULL");
  const search = searchTermOf(filter);
  if (search) {
    const pattern = `%${search.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    conditions.push(
      "(LOWER(p.first_name) LIKE ? ESCAPE '!' OR LOWER(p.last_name) LIKE ? ESCAPE '!' OR LOWER(p.username) LIKE ? ESCAPE '!' OR LOWER(p.main_email) LIKE ? ESCAPE '!')",
    );
    parameters.push(pattern, pattern, pattern, pattern);
  }
  return { where: conditions.join(" AND "), parameters };
}

const LIST_FROM = "FROM registration r JOIN person p ON p.id = r.person_id LEFT JOIN status s ON s.id = r.status_id";

/** Where a keyset page lies: strictly between the two uids (either may be open), read from one end. */
export interface UserRange {
  afterUid: number | null;
  beforeUid: number | null;
  limit: number;
  /** true: the `limit` users nearest `beforeUid` (backward paging); false: nearest `afterUid`. */
  fromEnd: boolean;
}

function keysetSql(range: UserRange): { keyset: string; keysetParameters: number[] } {
  let keyset = "";
  const keysetParameters: number[] = [];
  if (range.afterUid != null) {
    keyset += " AND r.uid > ?";
    keysetParameters.push(range.afterUid);
  }
  if (range.beforeUid != null) {
    keyset += " AND r.uid < ?";
    keysetParameters.push(range.beforeUid);
  }
  return { keyset, keysetParameters };
}

/** How many users of a project match the filter. */
export async function countUsers(em: EntityManager, groupId: number, filter: UserListFilter): Promise<number> {
  const { where, parameters } = filterSql(em, groupId, filter);
  const [row] = await selectRows(
    em,
    { total: "int" },
    `SELECT COUNT(*) AS total ${LIST_FROM} WHERE ${where}`,
    parameters,
  );
  return row?.total ?? 0;
}

const SUMMARY_SQL_SHAPE = {
  ...REF_SHAPE,
  star: "flag",
  application_date: "date",
  updated_at: "date",
  username: "text",
  first_name: "textOrNull",
  last_name: "textOrNull",
  org_name: "textOrNull",
  status_id: "intOrNull",
  status_name: "textOrNull",
  status_color: "textOrNull",
  status_excluded: "flag",
  admin_id: "intOrNull",
  admin_initials: "textOrNull",
  admin_color: "textOrNull",
  form_counts: "text",
  order_cents: "int",
  paid_cents: "int",
  comment_count: "int",
  non_excluded_children: "int",
  tags: "jsonOrNull",
} as const;

type FormCount =
  | "total_forms"
  | "completed_forms"
  | "total_user_forms"
  | "completed_user_forms"
  | "mandatory_user_forms"
  | "completed_mandatory_user_forms";

/** The columns a user summary is built from; counts and sums are per registration. */
export type SummaryRow = Omit<RowOf<typeof SUMMARY_SQL_SHAPE>, "form_counts"> & Record<FormCount, number>;

// Summary rows are read for every user of every page: decoded by one function that builds each
// row as a literal (one hidden class, no intermediate objects), since the generic decodeRows plus
// six added properties showed among the largest costs of a users page in a CPU profile (and its
// garbage in the collector's share). The columns are checked once per statement against the parts
// it reads. The six form counts come as one "n,n,n,n,n,n" column: one correlated subquery.
// A part left out is not selected at all (no placeholder columns for MariaDB to build and the
// driver to parse: about a seventh of a users page statement): its members decode as zero, empty
// or null.
function summaryRowsOf(
  raw: readonly Record<string, unknown>[],
  sql: string,
  parts: ReadonlySet<SummaryPart> | null,
): SummaryRow[] {
  if (raw.length > 0) assertColumns(summaryColumnsRead(parts), raw[0], sql);
  return raw.map(summaryRowOf);
}

const int = (value: unknown) => decodeColumn("int", value) as number;
const intOrNull = (value: unknown) => decodeColumn("intOrNull", value) as number | null;
const textOrNull = (value: unknown) => decodeColumn("textOrNull", value) as string | null;
const flag = (value: unknown) => decodeColumn("flag", value) as boolean;
// A column of a part the statement did not read is absent (undefined), not NULL.
const intOrZero = (value: unknown) => (value === undefined ? 0 : int(value));
const flagOrFalse = (value: unknown) => (value === undefined ? false : flag(value));

function summaryRowOf(raw: Record<string, unknown>): SummaryRow {
  const counts = raw.form_counts === undefined ? [] : String(raw.form_counts).split(",");
  return {
    uid: int(raw.uid),
    project_id: int(raw.project_id),
    person_id: int(raw.person_id),
    connected_to: intOrNull(raw.connected_to),
    star: flag(raw.star),
    application_date: decodeColumn("date", raw.application_date) as Date,
    updated_at: decodeColumn("date", raw.updated_at) as Date,
    username: raw.username === undefined ? "" : (decodeColumn("text", raw.username) as string),
    first_name: textOrNull(raw.first_name),
    last_name: textOrNull(raw.last_name),
    org_name: textOrNull(raw.org_name),
    status_id: intOrNull(raw.status_id),
    status_name: textOrNull(raw.status_name),
    status_color: textOrNull(raw.status_color),
    status_excluded: flagOrFalse(raw.status_excluded),
    admin_id: intOrNull(raw.admin_id),
    admin_initials: textOrNull(raw.admin_initials),
    admin_color: textOrNull(raw.admin_color),
    order_cents: intOrZero(raw.order_cents),
    paid_cents: intOrZero(raw.paid_cents),
    comment_count: intOrZero(raw.comment_count),
    non_excluded_children: intOrZero(raw.non_excluded_children),
    tags: raw.tags === undefined ? null : decodeColumn("jsonOrNull", raw.tags),
    total_forms: Number(counts[0] ?? 0),
    completed_forms: Number(counts[1] ?? 0),
    total_user_forms: Number(counts[2] ?? 0),
    completed_user_forms: Number(counts[3] ?? 0),
    mandatory_user_forms: Number(counts[4] ?? 0),
    completed_mandatory_user_forms: Number(counts[5] ?? 0),
  };
}

async function selectSummaryRows(em: EntityManager, sql: string, parameters: readonly unknown[]) {
  return summaryRowsOf(await selectRawRows(em, sql, parameters), sql, null);
}

// A registration's tags as one JSON array column, so a summary costs one statement.
const tagsJsonSql = (em: EntityManager) =>
  jsonObjectsSql(em, [
    ["id", "t.id"],
    ["name", "t.name"],
  ]);

/**
 * The parts of a summary a caller may ask for alone (identity columns are always read). `formCount`
 * is the number of forms only; `forms` every form count. A page that asks for fewer parts reads
 * fewer subqueries and joins: a users page asking for two metaInfo members costs MariaDB half the
 * time of one reading every part.
 */
export type SummaryPart =
  "formCount" | "forms" | "order" | "paid" | "comments" | "children" | "tags" | "person" | "status" | "admin";

/** Whether a summary read with `parts` (null: every part) reads `part`. */
const readsPart = (parts: ReadonlySet<SummaryPart> | null, part: SummaryPart) => parts === null || parts.has(part);

type SummaryColumn = keyof typeof SUMMARY_SQL_SHAPE;

/** A summary part's select-list entries and the columns they name. */
interface SummaryPartSql {
  columns: readonly SummaryColumn[];
  sql: (em: EntityManager) => string;
}

/**
 * Each part's columns, in select-list order; a part left out is not selected (summaryRowOf
 * decodes its members as zero, empty or null). `forms` and `formCount` both fill `form_counts`:
 * `forms` wins when both are read.
 */
const SUMMARY_PART_SQL: Readonly<Record<SummaryPart, SummaryPartSql>> = {
  person: {
    columns: ["username", "first_name", "last_name", "org_name"],
    sql: () => "p.username, p.first_name, p.last_name, p.org_name",
  },
  status: {
    columns: ["status_id", "status_name", "status_color", "status_excluded"],
    sql: () => "s.id AS status_id, s.name AS status_name, s.color AS status_color, s.is_excluded AS status_excluded",
  },
  admin: {
    columns: ["admin_id", "admin_initials", "admin_color"],
    sql: () => "a.id AS admin_id, a.initials AS admin_initials, a.color AS admin_color",
  },
  forms: {
    columns: ["form_counts"],
    sql: () => `(SELECT CONCAT(COUNT(*),
                 ',', COALESCE(SUM(CASE WHEN rf.completed = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND rf.completed = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND f.mandatory = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND f.mandatory = 1 AND rf.completed = 1 THEN 1 ELSE 0 END), 0))
          FROM registration_form rf JOIN form f ON f.id = rf.form_id
         WHERE rf.registration_id = r.uid) AS form_counts`,
  },
  formCount: {
    columns: ["form_counts"],
    // COUNT(*) alone needs no join to form: an index-only count (the other five counts read as 0).
    sql: () => "(SELECT COUNT(*) FROM registration_form rf WHERE rf.registration_id = r.uid) AS form_counts",
  },
  order: {
    columns: ["order_cents"],
    sql: () =>
      `(SELECT COALESCE(SUM(${cartLineAmountSql("c")}), 0) FROM cart_line c WHERE c.registration_id = r.uid) AS order_cents`,
  },
  paid: {
    columns: ["paid_cents"],
    sql: () =>
      `(SELECT COALESCE(SUM(${paymentAmountSql("pm")}), 0) FROM payment pm WHERE pm.registration_id = r.uid) AS paid_cents`,
  },
  comments: {
    columns: ["comment_count"],
    sql: () => "(SELECT COUNT(*) FROM admin_comment ac WHERE ac.registration_id = r.uid) AS comment_count",
  },
  children: {
    columns: ["non_excluded_children"],
    sql: () => `(SELECT COUNT(*) FROM registration ch LEFT JOIN status cs ON cs.id = ch.status_id
          WHERE ch.project_id = r.project_id AND ch.connected_to = r.person_id
            AND ${statusExcludedSql("cs", false)}) AS non_excluded_children`,
  },
  tags: {
    columns: ["tags"],
    sql: (em) => `(SELECT ${tagsJsonSql(em)} FROM registration_tag rt JOIN tag t ON t.id = rt.tag_id
          WHERE rt.registration_id = r.uid) AS tags`,
  },
};

const SUMMARY_PARTS = Object.keys(SUMMARY_PART_SQL) as SummaryPart[];
// The identity columns every summary statement reads: those of the shape no part names.
const PART_COLUMNS = new Set<SummaryColumn>(SUMMARY_PARTS.flatMap((part) => SUMMARY_PART_SQL[part].columns));
const ALWAYS_READ_COLUMNS = (Object.keys(SUMMARY_SQL_SHAPE) as SummaryColumn[]).filter(
  (column) => !PART_COLUMNS.has(column),
);

/** The parts a summary statement reading `parts` (null: every part) selects, in select-list order. */
const partsSelected = (parts: ReadonlySet<SummaryPart> | null): SummaryPart[] =>
  SUMMARY_PARTS.filter((part) => readsPart(parts, part) && !(part === "formCount" && readsPart(parts, "forms")));

/** The columns a summary statement reading `parts` returns. */
const summaryColumnsRead = (parts: ReadonlySet<SummaryPart> | null): SummaryColumn[] => [
  ...ALWAYS_READ_COLUMNS,
  ...partsSelected(parts).flatMap((part) => SUMMARY_PART_SQL[part].columns),
];

/** The summary select list; without `parts`, every part. */
const SUMMARY_COLUMNS = (em: EntityManager, parts: ReadonlySet<SummaryPart> | null = null): string =>
  [
    REF_COLUMNS,
    "r.star",
    "r.application_date",
    "r.updated_at",
    ...partsSelected(parts).map((part) => SUMMARY_PART_SQL[part].sql(em)),
  ].join(",\n       ");

/**
 * The joins the wanted parts (all without `parts`) and the filter need (the filter reads the
 * person and the status). `person` is "LEFT JOIN" where the registration itself is outer-joined.
 */
function summaryJoinsFor(
  parts: ReadonlySet<SummaryPart> | null,
  filter: UserListFilter = {},
  person: "JOIN" | "LEFT JOIN" = "JOIN",
): string {
  const wanted = (part: SummaryPart) => readsPart(parts, part);
  const joins: string[] = [];
  if (wanted("person") || searchTermOf(filter)) joins.push(`${person} person p ON p.id = r.person_id`);
  if (wanted("status") || filter.excluded != null) joins.push("LEFT JOIN status s ON s.id = r.status_id");
  if (wanted("admin")) joins.push("LEFT JOIN admin a ON a.id = r.assigned_admin_id");
  return joins.join("\n  ");
}

const SUMMARY_JOINS = summaryJoinsFor(null);

/** The tags of a summary row, by tag id. */
export function tagsOfSummaryRow(row: SummaryRow): TagRecord[] {
  const tags = Array.isArray(row.tags) ? (row.tags as { id: unknown; name: unknown }[]) : [];
  return tags
    .filter((tag) => tag && tag.id != null)
    .map((tag) => ({ id: Number(tag.id), name: String(tag.name ?? "") }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Summary rows (with their tags) of many registrations: one statement per READ_CHUNK
 * registrations, however many forms, cart lines, tags or children they have. Missing uids are absent.
 */
export async function readSummaryRows(em: EntityManager, uids: readonly number[]): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  await chunked(uids, async (chunk) => {
    rows.push(
      ...(await selectSummaryRows(
        em,
        `SELECT ${SUMMARY_COLUMNS(em)} FROM registration r ${SUMMARY_JOINS} WHERE r.uid IN (${sqlPlaceholders(chunk.length)})`,
        chunk,
      )),
    );
  });
  return rows;
}

/**
 * The summary row of a person's registration in a project, read together with the project's
 * ownership in one statement: `owned` false when the project is not the organization's (or does
 * not exist), `row` null when the person is not registered there.
 */
export async function readOwnedSummaryRow(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  personId: number,
  options: { withChildren?: boolean; parts?: ReadonlySet<SummaryPart> | null; lists?: RegistrationListsWanted } = {},
): Promise<{
  owned: boolean;
  row: SummaryRow | null;
  children: SummaryRow[];
  /** The lists read along (options.lists), by uid. */
  lists: Map<number, RegistrationLists>;
}> {
  // With children: the person's own row and their children's, in uid order, in the same statement.
  const who = options.withChildren ? "(r.person_id = ? OR r.connected_to = ?)" : "r.person_id = ?";
  const parts = options.parts ?? null;
  const wanted = options.lists ?? {};
  const lists = registrationListsSql(em, wanted, personId);
  // Outer joins throughout: the project row comes back even without a registration.
  const sql = `SELECT ${[SUMMARY_COLUMNS(em, parts), ...lists.columns].join(",\n       ")}
      FROM project pr
      LEFT JOIN registration r ON r.project_id = pr.id AND ${who}
      ${summaryJoinsFor(parts, {}, "LEFT JOIN")}
     WHERE pr.id = ? AND pr.organization_id = ?
     ORDER BY r.uid`;
  const whoParameters = options.withChildren ? [personId, personId] : [personId];
  const raw = await selectRawRows(em, sql, [...lists.parameters, ...whoParameters, projectId, organizationId]);
  const listsByUid = new Map<number, RegistrationLists>();
  if (raw.length === 0) return { owned: false, row: null, children: [], lists: listsByUid };
  const rows = raw[0].uid == null ? [] : summaryRowsOf(raw, sql, parts);
  const row = rows.find((candidate) => candidate.person_id === personId) ?? null;
  if (lists.columns.length > 0 && row) {
    rows.forEach((candidate, i) =>
      listsByUid.set(candidate.uid, decodeRegistrationLists(raw[i], wanted, candidate === row, sql)),
    );
  }
  // Children of an unregistered person are not reported: the caller answers USER_NOT_FOUND.
  return {
    owned: true,
    row,
    children: row ? rows.filter((candidate) => candidate !== row) : [],
    lists: listsByUid,
  };
}

/**
 * The index a users page reads on MySQL/MariaDB. Without a status filter the page is the
 * project's registrations in uid order, which (project_id, uid) holds in that order: the page
 * reads `limit` entries of it. Left to statistics, the optimizer may walk the primary key through
 * other projects' rows or sort the whole project instead, and flips between them as the
 * statistics change (issue 12's plans that do not depend on statistics; see query-plans.test.ts).
 * A status filter has its own (project_id, status_id) index, also in uid order.
 */
const pageIndexHint = (em: EntityManager, filter: UserListFilter): string =>
  onSqlite(em) || filter.statusId != null ? "" : "FORCE INDEX (IDX_registration_project_uid)";

/** A page of summary rows as readSummaryPageInRange reads it. */
export interface SummaryPageRead {
  /** false: the project is not the organization's (or does not exist); the page is then empty. */
  owned: boolean;
  rows: SummaryRow[];
  /** The registrations in `countBuckets` from the project's counters; null when none were asked. */
  matchingTotal: number | null;
}

/**
 * Up to `limit` summary rows of a project's users matching the filter within the range (keyset),
 * returned in uid order, in one statement that also tells whether the organization owns the
 * project (the project row is the outer side: no row, not owned; one row without a user, an
 * empty page) and, with `countBuckets`, reads the matching total from the project's counters.
 * With `parts`, only those summary parts are read (the others read as zero): the rows are then
 * for the caller's eyes only.
 */
export async function readSummaryPageInRange(
  em: EntityManager,
  organizationId: number,
  groupId: number,
  filter: UserListFilter,
  range: UserRange,
  parts: ReadonlySet<SummaryPart> | null = null,
  countBuckets: readonly CounterBucket[] | null = null,
): Promise<SummaryPageRead> {
  const { where, parameters } = filterSql(em, groupId, filter);
  const { keyset, keysetParameters } = keysetSql(range);
  const direction = range.fromEnd ? "DESC" : "ASC";
  const sql = `SELECT pg.*, ${countBuckets ? registrationsInBucketsSql("pr.id", countBuckets) : "NULL"} AS matching_total
       FROM project pr
       LEFT JOIN (SELECT ${SUMMARY_COLUMNS(em, parts)}
                    FROM registration r ${pageIndexHint(em, filter)} ${summaryJoinsFor(parts, filter)}
                   WHERE ${where}${keyset} ORDER BY r.uid ${direction} LIMIT ${Math.max(0, Math.trunc(range.limit))}) pg ON 1 = 1
      WHERE pr.id = ? AND pr.organization_id = ?`;
  const raw = await selectRawRows(em, sql, [...parameters, ...keysetParameters, groupId, organizationId]);
  if (raw.length === 0) return { owned: false, rows: [], matchingTotal: null };
  const matchingTotal = countBuckets ? Number(raw[0].matching_total ?? 0) : null;
  // Ordered here: an outer ORDER BY would make MariaDB sort the derived page again in a temporary table.
  const rows = raw[0].uid == null ? [] : summaryRowsOf(raw, sql, parts).sort((a, b) => a.uid - b.uid);
  return { owned: true, rows, matchingTotal };
}

/**
 * Summary rows of the registrations a statement picks (`pickSql` selects a `uid` column, e.g. a
 * page read through an index), in uid order: the pick runs once, the summary columns only for
 * what it picked.
 */
export async function readSummaryRowsPicked(
  em: EntityManager,
  pickSql: string,
  parameters: readonly unknown[],
): Promise<SummaryRow[]> {
  return selectSummaryRows(
    em,
    `SELECT ${SUMMARY_COLUMNS(em)} FROM (${pickSql}) pick JOIN registration r ON r.uid = pick.uid ${SUMMARY_JOINS} ORDER BY r.uid`,
    parameters,
  );
}

/** Summary rows of the children of the given parents (same project, connected_to the parent), by uid. */
export async function readChildSummaryRows(
  em: EntityManager,
  parents: readonly ProjectPersonKey[],
): Promise<SummaryRow[]> {
  const { clause, parameters } = projectAndColumnClause("connected_to", parents);
  if (!clause) return [];
  return selectSummaryRows(
    em,
    `SELECT ${SUMMARY_COLUMNS(em)} FROM registration r ${SUMMARY_JOINS} WHERE ${clause} ORDER BY r.uid`,
    parameters,
  );
}

export const refOfSummaryRow = (row: SummaryRow): RegistrationRef => toRef(row);

/** A tag of the project, or null when the project has no tag of that id. */
export async function findTagOfProject(em: EntityManager, projectId: number, tagId: number): Promise<TagRecord | null> {
  const [row] = await selectRows(
    em,
    { id: "int", name: "text" },
    `SELECT id, name FROM tag WHERE project_id = ? AND id = ?`,
    [projectId, tagId],
  );
  return row ?? null;
}

// Statuses and families, for the write commands (set_status, create_child).

/**
 * Whether the organization owns the project and, when it does, the project's status `statusId`
 * (null when it has none of that id), in one statement.
 */
export async function findOwnedProjectStatus(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  statusId: number,
): Promise<{ owned: boolean; status: { excluded: boolean } | null }> {
  const [row] = await selectRows(
    em,
    { status_id: "intOrNull", is_excluded: "flag" },
    `SELECT s.id AS status_id, s.is_excluded FROM project p LEFT JOIN status s ON s.project_id = p.id AND s.id = ?
      WHERE p.id = ? AND p.organization_id = ?`,
    [statusId, projectId, organizationId],
  );
  if (!row) return { owned: false, status: null };
  return { owned: true, status: row.status_id === null ? null : { excluded: row.is_excluded } };
}

/**
 * Sets (or, null, removes) the status and, with it, updated_at; true when it changed. An equal
 * status is not matched, so nothing is written.
 */
export async function setRegistrationStatus(
  em: EntityManager,
  uid: number,
  statusId: number | null,
  updatedAt: Date,
): Promise<boolean> {
  const differs = em.connection.options.type === "better-sqlite3" ? "status_id IS NOT ?" : "NOT (status_id <=> ?)";
  const result = await executeWrite(
    em,
    `UPDATE registration SET status_id = ?, updated_at = ? WHERE uid = ? AND ${differs}`,
    [statusId, sqlDate(em, updatedAt), uid, statusId],
  );
  return result.affected > 0;
}

/** Whether the project keeps families (parents with children). */
export async function isFamilyProject(em: EntityManager, projectId: number): Promise<boolean> {
  const rows = await selectRows(em, { family_system: "flag" }, `SELECT family_system FROM project WHERE id = ?`, [
    projectId,
  ]);
  return rows[0]?.family_system ?? false;
}

/**
 * The registration of `cloginId` in the project, locked (MySQL/MariaDB), for a write that adds a
 * child to its family (create_child): its connected_to tells a child from a parent, its exclusion
 * puts the new child in its counter bucket.
 */
export async function lockRegistration(
  em: EntityManager,
  projectId: number,
  cloginId: number,
): Promise<{ uid: number; connectedTo: number | null; excluded: boolean } | null> {
  const rows = await selectRows(
    em,
    { uid: "int", connected_to: "intOrNull", excluded: "flag" },
    `SELECT r.uid, r.connected_to, ${excludedByStatusSql("r.status_id")} AS excluded
       FROM registration r WHERE r.project_id = ? AND r.person_id = ?${onSqlite(em) ? "" : " FOR UPDATE"}`,
    [projectId, cloginId],
  );
  return rows[0] ? { uid: rows[0].uid, connectedTo: rows[0].connected_to, excluded: rows[0].excluded } : null;
}
