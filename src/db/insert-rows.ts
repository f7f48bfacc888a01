import type { EntityManager, EntityTarget, ObjectLiteral, QueryResult } from "typeorm";

/**
 * One multi-row INSERT. TypeORM's `em.insert` re-reads defaulted columns afterwards (an extra
 * SELECT per call on SQLite); the rows here set every column, so that read is skipped.
 */
export async function insertRows<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
): Promise<void> {
  if (rows.length === 0) return;
  await em
    .createQueryBuilder()
    .insert()
    .into(target)
    .values(rows as never)
    .updateEntity(false)
    .execute();
}

/**
 * The same multi-row INSERT as `insertRows`, written directly: each value is prepared once by the
 * driver (dates, flags) and bound to a placeholder, without the query builder's per-value work,
 * which dominated `regapi seed`'s own CPU time. Every row must set the same members.
 */
export async function insertPlainRows<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
): Promise<void> {
  if (rows.length === 0) return;
  await insertPlainRowsRaw(em, target, rows);
}

/** insertPlainRows, answering what executeWrite answers. */
async function insertPlainRowsRaw<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
): Promise<WriteResult> {
  const metadata = em.connection.getMetadata(target);
  const driver = em.connection.driver;
  const columns = Object.keys(rows[0]).map((property) => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${metadata.tableName} has no column for member ${property}`);
    return column;
  });
  const placeholders = `(${columns.map(() => "?").join(", ")})`;
  const parameters: unknown[] = [];
  for (const row of rows)
    for (const column of columns) parameters.push(driver.preparePersistentValue(row[column.propertyName], column));
  return executeWrite(
    em,
    `INSERT INTO ${driver.escape(metadata.tableName)} (${columns.map((c) => driver.escape(c.databaseName)).join(", ")}) VALUES ${rows.map(() => placeholders).join(", ")}`,
    parameters,
  );
}

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
  const runner = em.queryRunner ?? em.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, parameters, true)) as QueryResult;
    const raw = result.raw as { insertId?: number } | number | bigint | undefined;
    const insertId = typeof raw === "object" && raw !== null ? Number(raw.insertId ?? 0) : Number(raw ?? 0);
    return { affected: result.affected ?? 0, insertId };
  } finally {
    if (!em.queryRunner) await runner.release();
  }
}

/**
 * One row inserted the way insertPlainRows inserts (no read-back of defaulted columns); returns
 * its generated key (the auto-increment id or uid).
 */
export async function insertRowReturningId<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  row: Partial<T>,
): Promise<number> {
  return (await insertPlainRowsRaw(em, target, [row])).insertId;
}
