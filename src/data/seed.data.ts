import type { EntityManager, EntityTarget, ObjectLiteral } from "typeorm";
import { insertPlainRows } from "../db/insert-rows";
import { selectRows, sqlPlaceholders } from "./sql-rows";

// SQL of the bulk seed (regapi seed): what a new registrant may be given, multi-row inserts sized
// to the bind-variable limit, and the generated ids read back per chunk instead of per row.

/** The project's statuses (with whether each excludes) and tags, by id. */
export async function readSeedReferences(em: EntityManager, projectId: number) {
  const [statuses, tags] = await Promise.all([
    selectRows(
      em,
      { id: "int", is_excluded: "flag" },
      `SELECT id, COALESCE(is_excluded, 0) AS is_excluded FROM status WHERE project_id = ? ORDER BY id`,
      [projectId],
    ),
    selectRows(em, { id: "int" }, `SELECT id FROM tag WHERE project_id = ? ORDER BY id`, [projectId]),
  ]);
  return { statuses, tagIds: tags.map((tag) => tag.id) };
}

/**
 * Multi-row INSERTs, as many rows per statement as the bind-variable limit allows (counting every
 * column of the table, an upper bound of the parameters per row). No generated id is read back
 * per row: the caller reads them back in one query per chunk.
 */
export async function insertSeedRows<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
  bindLimit: number,
): Promise<void> {
  const rowsPerStatement = Math.max(1, Math.floor(bindLimit / em.dataSource.getMetadata(target).columns.length));
  for (let i = 0; i < rows.length; i += rowsPerStatement)
    await insertPlainRows(em, target, rows.slice(i, i + rowsPerStatement));
}

/** Generated ids of the rows just inserted, by their unique key, in as few statements as the bind limit allows. */
async function selectIdMap<K extends string | number>(
  bindLimit: number,
  keys: K[],
  select: (batch: K[]) => Promise<{ id: number; lookup_key: K }[]>,
): Promise<Map<K, number>> {
  const ids = new Map<K, number>();
  const perQuery = bindLimit - 10;
  for (let i = 0; i < keys.length; i += perQuery) {
    for (const row of await select(keys.slice(i, i + perQuery))) ids.set(row.lookup_key, row.id);
  }
  if (ids.size !== keys.length) throw new Error(`seed: read back ${ids.size} of ${keys.length} generated ids`);
  return ids;
}

/** The ids of the organization's persons of these usernames. */
export function readPersonIdsByUsername(
  em: EntityManager,
  organizationId: number,
  usernames: string[],
  bindLimit: number,
): Promise<Map<string, number>> {
  return selectIdMap(bindLimit, usernames, (batch) =>
    selectRows(
      em,
      { id: "int", lookup_key: "text" },
      `SELECT id, username AS lookup_key FROM person WHERE organization_id = ? AND username IN (${sqlPlaceholders(batch.length)})`,
      [organizationId, ...batch],
    ),
  );
}

/** The uids of the project's registrations of these persons. */
export function readUidsByPerson(
  em: EntityManager,
  projectId: number,
  personIds: number[],
  bindLimit: number,
): Promise<Map<number, number>> {
  return selectIdMap(bindLimit, personIds, (batch) =>
    selectRows(
      em,
      { id: "int", lookup_key: "int" },
      `SELECT uid AS id, person_id AS lookup_key FROM registration WHERE project_id = ? AND person_id IN (${sqlPlaceholders(batch.length)})`,
      [projectId, ...batch],
    ),
  );
}
