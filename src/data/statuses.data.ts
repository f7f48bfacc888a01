import type { EntityManager } from "typeorm";
import { Status } from "../entities";
import { decodeRows, selectRows, sqlPlaceholders } from "./sql-rows";

/**
 * The one SQL test of "this registration's status excludes it", for a LEFT JOINed status alias:
 * no status counts as not excluded. `excluded` false selects the others.
 */
export const statusExcludedSql = (alias: string, excluded = true): string =>
  `COALESCE(${alias}.is_excluded, 0) = ${excluded ? 1 : 0}`;

const STATUS_BY_NAME = { id: "int", name: "text" } as const;

/**
 * The project's status of that case-folded name, or null. With `lockForShare` the read takes a
 * shared lock (MySQL/MariaDB): inside a transaction a plain read would see the transaction's
 * snapshot rather than a row another transaction just committed. SQLite has one writer at a
 * time and no such lock; there a plain read is already current.
 */
export async function findStatusByNameKey(
  em: EntityManager,
  projectId: number,
  nameKey: string,
  lockForShare: boolean,
): Promise<{ id: number; name: string } | null> {
  const query = em
    .createQueryBuilder(Status, "status")
    .select("status.id", "id")
    .addSelect("status.name", "name")
    .where("status.projectId = :projectId AND status.nameKey = :nameKey", { projectId, nameKey });
  if (lockForShare && em.dataSource.options.type !== "better-sqlite3") query.setLock("pessimistic_read");
  const [row] = decodeRows(STATUS_BY_NAME, await query.getRawMany(), "status by name_key");
  return row ?? null;
}

export async function insertStatus(
  em: EntityManager,
  status: { projectId: number; name: string; nameKey: string; color: string; isExcluded: boolean },
): Promise<number> {
  const inserted = await em.insert(Status, status);
  return Number(inserted.identifiers[0].id);
}

export interface StatusRecord {
  id: number;
  name: string;
  color: string;
  isExcluded: boolean;
}

/** A status of the project, or null when the project has no status of that id. */
export async function findStatusOfProject(
  em: EntityManager,
  projectId: number,
  statusId: number,
): Promise<StatusRecord | null> {
  const [row] = await selectRows(
    em,
    { id: "int", name: "text", color: "text", is_excluded: "flag" },
    `SELECT id, name, color, is_excluded FROM status WHERE project_id = ? AND id = ?`,
    [projectId, statusId],
  );
  return row ? { id: row.id, name: row.name, color: row.color, isExcluded: row.is_excluded } : null;
}

/** The statuses of these projects in id order (creation order), by project id: one statement. */
export async function readStatusesOfProjects(
  em: EntityManager,
  projectIds: readonly number[],
): Promise<Map<number, StatusRecord[]>> {
  const byProject = new Map<number, StatusRecord[]>();
  if (projectIds.length === 0) return byProject;
  const rows = await selectRows(
    em,
    { id: "int", project_id: "int", name: "text", color: "text", is_excluded: "flag" },
    `SELECT id, project_id, name, color, is_excluded FROM status
      WHERE project_id IN (${sqlPlaceholders(projectIds.length)}) ORDER BY id`,
    [...projectIds],
  );
  for (const row of rows) {
    const list = byProject.get(row.project_id) ?? [];
    list.push({ id: row.id, name: row.name, color: row.color, isExcluded: row.is_excluded });
    byProject.set(row.project_id, list);
  }
  return byProject;
}
