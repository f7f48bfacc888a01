import type { EntityManager } from "typeorm";
import { toDate } from "../common/dates";
import { queryPooled } from "../db/pooled-select";

// Typed rows from hand-written SQL, read the same way on every driver: mysql2 returns COUNT/SUM
// as numbers or decimal strings and booleans as 0/1; better-sqlite3 returns integers and text
// dates. A row shape names every column a statement must return and how to read it; a column the
// statement does not return (a misspelt alias) throws instead of silently reading as 0 or null.

export type ColumnKind = "int" | "intOrNull" | "text" | "textOrNull" | "flag" | "date" | "dateOrNull" | "jsonOrNull";

/** Column name → how to read it. */
export type RowShape = Readonly<Record<string, ColumnKind>>;

/** A piece of SQL with its `?` placeholders' values, in order: what the data modules compose statements from. */
export interface SqlFragment {
  sql: string;
  parameters: unknown[];
}

type Decoded<K extends ColumnKind> = K extends "int"
  ? number
  : K extends "intOrNull"
    ? number | null
    : K extends "text"
      ? string
      : K extends "textOrNull"
        ? string | null
        : K extends "flag"
          ? boolean
          : K extends "date"
            ? Date
            : K extends "dateOrNull"
              ? Date | null
              : unknown;

/** The typed row a shape describes. */
export type RowOf<S extends RowShape> = { -readonly [P in keyof S]: Decoded<S[P]> };

/** Raised when a statement's result lacks a column its shape names: a bug in the SQL, never bad input. */
export class RowShapeError extends Error {
  constructor(column: string, sql: string) {
    super(`column "${column}" is missing from the result of: ${sql.replace(/\s+/g, " ").trim().slice(0, 160)}`);
    this.name = "RowShapeError";
  }
}

/** One column value read as `kind` (what decodeRows does for each column). */
export function decodeColumn(kind: ColumnKind, value: unknown): unknown {
  switch (kind) {
    case "int":
      return Number(value ?? 0);
    case "intOrNull":
      return value == null ? null : Number(value);
    case "text":
      return value == null ? "" : String(value);
    case "textOrNull":
      return value == null ? null : String(value);
    case "flag":
      return value === true || Number(value) === 1;
    case "date":
      return toDate(value as Date | string);
    case "dateOrNull":
      return value == null ? null : toDate(value as Date | string);
    case "jsonOrNull":
      // JSON aggregates come back as text (SQLite, MariaDB) or already parsed (MySQL's JSON type).
      return value == null ? null : typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  }
}

/** Reads raw driver rows into typed rows; throws RowShapeError when a named column is absent. */
export function decodeRows<S extends RowShape>(
  shape: S,
  rows: readonly Record<string, unknown>[],
  sql = "",
): RowOf<S>[] {
  const columns = Object.entries(shape);
  return rows.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const [column, kind] of columns) {
      if (!(column in raw)) throw new RowShapeError(column, sql);
      row[column] = decodeColumn(kind, raw[column]);
    }
    return row as RowOf<S>;
  });
}

/** Throws RowShapeError when `raw` (a row of the statement `sql`) lacks one of `columns`. */
export function assertColumns(columns: readonly string[], raw: Record<string, unknown>, sql = ""): void {
  for (const column of columns) if (!(column in raw)) throw new RowShapeError(column, sql);
}

/** Runs one statement and returns its rows as the driver gives them, for readers that decode them themselves. */
export async function selectRawRows(
  em: EntityManager,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<Record<string, unknown>[]> {
  return (await queryPooled(em, sql, [...parameters])) as Record<string, unknown>[];
}

/** Runs one statement and returns its rows typed by `shape`. */
export async function selectRows<S extends RowShape>(
  em: EntityManager,
  shape: S,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<RowOf<S>[]> {
  return decodeRows(shape, await selectRawRows(em, sql, parameters), sql);
}

/** `?, ?, ?` for an IN list of `count` bound values. */
export const sqlPlaceholders = (count: number): string => Array.from({ length: count }, () => "?").join(", ");

type JsonMembers = readonly (readonly [string, string])[];

/** One row as a JSON object with these members (`[member, SQL expression]`). */
export function jsonObjectSql(em: EntityManager, members: JsonMembers): string {
  const pairs = members.map(([member, sql]) => `'${member}', ${sql}`).join(", ");
  return em.connection.options.type === "better-sqlite3" ? `json_object(${pairs})` : `JSON_OBJECT(${pairs})`;
}

/**
 * An aggregate of the rows a subquery reads, as one JSON array of objects with these members
 * (`[member, SQL expression]`), so a statement can return a list per row: `JSON_ARRAYAGG` on
 * MySQL/MariaDB, `json_group_array` on SQLite. Its order is not defined: sort after decoding.
 * On MariaDB each aggregate costs the server a fixed price per statement whatever it aggregates
 * (GROUP_CONCAT's machinery sets up a temporary table; measured in BENCHMARKS.md, "Stop 31"):
 * where a read is hot, read the list as rows of a UNION ALL arm instead (withListArms).
 */
export function jsonObjectsSql(em: EntityManager, members: JsonMembers): string {
  const object = jsonObjectSql(em, members);
  return em.connection.options.type === "better-sqlite3" ? `json_group_array(${object})` : `JSON_ARRAYAGG(${object})`;
}

/**
 * A list read beside a statement's own rows: the rows of `from` (joined tables, e.g.
 * "registration_form rf JOIN form fo ON fo.id = rf.form_id") whose `owner` column (an int) names
 * the row of the statement they belong to, each as a JSON object with `members`.
 */
export interface ListSql {
  from: string;
  owner: string;
  members: JsonMembers;
}

/** A list arm of withListArms: which rows of `list` to read (`join` and `where` may read the owner). */
export interface ListArm {
  name: string;
  list: ListSql;
  /** Joins after `from`, e.g. "JOIN registration r ON r.uid = rf.registration_id". */
  join: string;
  where: string;
  parameters: readonly unknown[];
}

const ARM_COLUMNS = ["list_arm", "list_owner", "list_item"] as const;

/**
 * One statement that returns a head's rows and, after them in no defined order, the rows of
 * some lists, as UNION ALL arms: each list row carries its arm's name, its owner and itself as a
 * JSON object, in three columns the head's rows hold NULL in (the arms hold NULL in the head's
 * `head.columns` columns). The statement reads one consistent snapshot like any other, and costs
 * the server what the lists' own rows cost where a JSON aggregate per list costs a fixed price
 * (jsonObjectsSql). Split its rows with splitListArms.
 */
export function withListArms(
  em: EntityManager,
  head: { select: string; rest: string; columns: number; parameters: readonly unknown[] },
  arms: readonly ListArm[],
): SqlFragment {
  const padding = Array.from({ length: head.columns }, () => "NULL").join(", ");
  const statements = [
    `SELECT ${head.select},\n       ${ARM_COLUMNS.map((column) => `NULL AS ${column}`).join(", ")}\n  ${head.rest}`,
    ...arms.map(
      ({ name, list, join, where }) =>
        `SELECT ${padding}, '${name}', ${list.owner}, ${jsonObjectSql(em, list.members)}\n  FROM ${list.from}\n  ${join}\n WHERE ${where}`,
    ),
  ];
  return {
    sql: statements.join("\nUNION ALL\n"),
    parameters: [...head.parameters, ...arms.flatMap((arm) => arm.parameters)],
  };
}

/** The rows of a statement built with withListArms: the head's, and each arm's JSON objects by owner. */
export function splitListArms(
  raw: readonly Record<string, unknown>[],
  sql = "",
): { head: Record<string, unknown>[]; lists: Map<string, Map<number, Record<string, unknown>[]>> } {
  const head: Record<string, unknown>[] = [];
  const lists = new Map<string, Map<number, Record<string, unknown>[]>>();
  if (raw.length > 0) assertColumns(ARM_COLUMNS, raw[0], sql);
  for (const row of raw) {
    const arm = row.list_arm;
    if (arm == null) {
      head.push(row);
      continue;
    }
    let byOwner = lists.get(String(arm));
    if (!byOwner) lists.set(String(arm), (byOwner = new Map()));
    const owner = Number(row.list_owner);
    // A JSON object comes back as text (SQLite, MariaDB) or already parsed (MySQL's JSON type).
    const item = (typeof row.list_item === "string" ? JSON.parse(row.list_item) : row.list_item) as Record<
      string,
      unknown
    >;
    const items = byOwner.get(owner);
    if (items) items.push(item);
    else byOwner.set(owner, [item]);
  }
  return { head, lists };
}

/**
 * The typed rows of a column read with jsonObjectsSql; NULL (MySQL/MariaDB aggregate no row so)
 * reads as none.
 */
export function decodeJsonRows<S extends RowShape>(shape: S, value: unknown, sql = ""): RowOf<S>[] {
  const parsed = decodeColumn("jsonOrNull", value);
  return Array.isArray(parsed) ? decodeRows(shape, parsed as Record<string, unknown>[], sql) : [];
}

/**
 * Text compared as MySQL/MariaDB and SQLite order ASCII identifiers (`f_301_10` before `f_301_2`),
 * for rows put in order after a statement rather than by ORDER BY.
 */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
