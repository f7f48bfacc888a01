import type { ColumnMetadata } from "typeorm/metadata/ColumnMetadata";
import type { EntityManager, EntityTarget, ObjectLiteral, QueryResult } from "typeorm";
import { queryPooled } from "./pooled-select";

// Writes as plain parameterised statements. TypeORM's query builders (em.insert, em.update,
// em.upsert) rebuild their SQL and walk every value on each call, and em.insert re-reads defaulted
// columns afterwards: on write-heavy days a large share of the service's CPU per statement
// (BENCHMARKS.md). Each value here is prepared once by the driver (dates, flags) and bound to a
// placeholder, and the statement goes straight to the transaction's connection (queryPooled).

/** What a write statement did: the rows it changed and, for an INSERT, the first generated key. */
export interface WriteResult {
  affected: number;
  insertId: number;
}

/**
 * Runs one INSERT, UPDATE or DELETE and says what it did, the same way on every driver (mysql2
 * answers a result header, better-sqlite3 through TypeORM the last rowid and a change count).
 */
export async function executeWrite(em: EntityManager, sql: string, parameters: unknown[]): Promise<WriteResult> {
  if (em.connection.options.type !== "better-sqlite3") {
    const header = (await queryPooled(em, sql, parameters)) as { affectedRows?: number; insertId?: number };
    return { affected: Number(header.affectedRows ?? 0), insertId: Number(header.insertId ?? 0) };
  }
  const runner = em.queryRunner ?? em.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, parameters, true)) as QueryResult;
    return { affected: result.affected ?? 0, insertId: Number(result.raw ?? 0) };
  } finally {
    if (!em.queryRunner) await runner.release();
  }
}

/** The columns of `target` that the members of `row` name, in the row's member order. */
function columnsOf<T extends ObjectLiteral>(em: EntityManager, target: EntityTarget<T>, row: Partial<T>) {
  const metadata = em.connection.getMetadata(target);
  const columns = Object.keys(row).map((property) => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${metadata.tableName} has no column for member ${property}`);
    return column;
  });
  return { table: em.connection.driver.escape(metadata.tableName), columns };
}

/** Every row's values for `columns`, prepared by the driver, in order. */
function valuesOf<T extends ObjectLiteral>(
  em: EntityManager,
  columns: ColumnMetadata[],
  rows: Partial<T>[],
): unknown[] {
  const driver = em.connection.driver;
  const values: unknown[] = [];
  for (const row of rows)
    for (const column of columns) values.push(driver.preparePersistentValue(row[column.propertyName], column));
  return values;
}

function insertSql<T extends ObjectLiteral>(em: EntityManager, target: EntityTarget<T>, rows: Partial<T>[]) {
  const { table, columns } = columnsOf(em, target, rows[0]);
  const escape = (column: ColumnMetadata) => em.connection.driver.escape(column.databaseName);
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  return {
    sql: `INSERT INTO ${table} (${columns.map(escape).join(", ")}) VALUES ${rows.map(() => tuple).join(", ")}`,
    columns,
    escape,
    parameters: valuesOf(em, columns, rows),
  };
}

/**
 * One multi-row INSERT of rows that all set the same members; columns they leave out take their
 * defaults.
 */
export async function insertRows<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
): Promise<void> {
  if (rows.length === 0) return;
  const { sql, parameters } = insertSql(em, target, rows);
  await executeWrite(em, sql, parameters);
}

/** insertRows under the name the bulk loaders use. */
export const insertPlainRows = insertRows;

/** One row inserted as insertRows does; returns its generated key (the auto-increment id or uid). */
export async function insertRowReturningId<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  row: Partial<T>,
): Promise<number> {
  const { sql, parameters } = insertSql(em, target, [row]);
  return (await executeWrite(em, sql, parameters)).insertId;
}

/**
 * One multi-row INSERT whose rows replace the `updated` members of rows already there with the
 * same unique key (`key`, the columns of a unique index).
 */
export async function upsertRows<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
  key: readonly (keyof T & string)[],
  updated: readonly (keyof T & string)[],
): Promise<void> {
  if (rows.length === 0) return;
  const { sql, columns, escape, parameters } = insertSql(em, target, rows);
  const name = (property: string) => escape(columns.find((column) => column.propertyName === property)!);
  const onConflict =
    em.connection.options.type === "better-sqlite3"
      ? `ON CONFLICT (${key.map(name).join(", ")}) DO UPDATE SET ${updated.map((p) => `${name(p)} = excluded.${name(p)}`).join(", ")}`
      : `ON DUPLICATE KEY UPDATE ${updated.map((p) => `${name(p)} = VALUES(${name(p)})`).join(", ")}`;
  await executeWrite(em, `${sql} ${onConflict}`, parameters);
}

/** A value of `target`'s member `property`, prepared by the driver as a bound parameter (for UPDATEs). */
export function preparedValue<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  property: keyof T & string,
  value: unknown,
): unknown {
  const column = em.connection.getMetadata(target).findColumnWithPropertyName(property);
  if (!column) throw new Error(`no column for member ${property}`);
  return em.connection.driver.preparePersistentValue(value, column);
}
