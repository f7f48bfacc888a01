import type { EntityManager } from "typeorm";
import { sqlDate } from "./events.data";
import { sqlPlaceholders } from "./sql-rows";

/**
 * Stamps `updated_at` on the registrations a transaction changed, in one UPDATE whatever their
 * number (by the unique (project_id, person_id) index).
 */
export async function stampRegistrationsUpdated(
  em: EntityManager,
  registrations: readonly { projectId: number; personIds: readonly number[] }[],
  at: Date,
): Promise<void> {
  const groups = registrations.filter((group) => group.personIds.length > 0);
  if (groups.length === 0) return;
  const where = groups.map((group) => `(project_id = ? AND person_id IN (${sqlPlaceholders(group.personIds.length)}))`);
  await em.query(`UPDATE registration SET updated_at = ? WHERE ${where.join(" OR ")}`, [
    sqlDate(em, at),
    ...groups.flatMap((group) => [group.projectId, ...group.personIds]),
  ]);
}

/** Stamps `updated_at` on registrations by uid, in one UPDATE (by primary key). */
export async function stampRegistrationsUpdatedByUid(
  em: EntityManager,
  uids: readonly number[],
  at: Date,
): Promise<void> {
  if (uids.length === 0) return;
  await em.query(`UPDATE registration SET updated_at = ? WHERE uid IN (${sqlPlaceholders(uids.length)})`, [
    sqlDate(em, at),
    ...[...uids].sort((a, b) => a - b),
  ]);
}
