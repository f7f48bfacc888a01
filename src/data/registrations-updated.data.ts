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

/**
 * Stamps `updated_at` on a registration of a project of `organizationId` and, for a child, on its
 * parent's registration, in one UPDATE: the family's exclusive lock taken by the stamp itself, for
 * a write that changes no column of the registration but needs it locked before it inserts rows
 * referring to it (docs/locking.md). The child's row is locked first, then the parent's, as
 * findRegisteredUser's lock takes them. Stamps nothing when the registration is absent or the
 * project is another organization's (the caller's read tells which).
 */
export async function stampOwnedFamilyUpdated(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  personId: number,
  at: Date,
): Promise<void> {
  const stamp = sqlDate(em, at);
  const owned = "(SELECT o.organization_id FROM project o WHERE o.id = r.project_id) = ?";
  if (em.connection.options.type === "better-sqlite3") {
    // One connection, transactions in turns: no lock to order, and SQLite updates one table.
    await em.query(
      `UPDATE registration SET updated_at = ?
        WHERE project_id = ? AND person_id IN (SELECT r.person_id FROM registration r WHERE r.project_id = ? AND r.person_id = ? AND ${owned}
                                               UNION ALL
                                               SELECT r.connected_to FROM registration r WHERE r.project_id = ? AND r.person_id = ? AND ${owned})`,
      [stamp, projectId, projectId, personId, organizationId, projectId, personId, organizationId],
    );
    return;
  }
  await em.query(
    `UPDATE registration r LEFT JOIN registration pr ON pr.project_id = r.project_id AND pr.person_id = r.connected_to
        SET r.updated_at = ?, pr.updated_at = ?
      WHERE r.project_id = ? AND r.person_id = ? AND ${owned}`,
    [stamp, stamp, projectId, personId, organizationId],
  );
}
