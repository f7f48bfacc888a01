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

/**
 * An aggregate of the rows a subquery reads, as one JSON array of objects with these members
 * (`[member, SQL expression]`), so a statement can return a list per row: `JSON_ARRAYAGG` on
 * MySQL/MariaDB, `json_group_array` on SQLite. Its order is not defined: sort after decoding.
 */
export function jsonObjectsSql(em: EntityManager, members: readonly (readonly [string, string])[]): string {
  const pairs = members.map(([member, sql]) => `'${member}', ${sql}`).join(", ");
  return em.connection.options.type === "better-sqlite3"
    ? `json_group_array(json_object(${pairs}))`
    : `JSON_ARRAYAGG(JSON_OBJECT(${pairs}))`;
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
