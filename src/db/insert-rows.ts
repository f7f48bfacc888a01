import type { EntityManager, EntityTarget, ObjectLiteral } from "typeorm";

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
  await em.query(
    `INSERT INTO ${driver.escape(metadata.tableName)} (${columns.map((c) => driver.escape(c.databaseName)).join(", ")}) VALUES ${rows.map(() => placeholders).join(", ")}`,
    parameters,
  );
}
