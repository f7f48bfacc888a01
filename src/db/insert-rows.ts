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
