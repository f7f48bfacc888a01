import type { EntityManager } from "typeorm";
import { userNotFound } from "../errors";

/** A user of a project: the registration and the person data the users operations need. */
export interface RegisteredUser {
  uid: number;
  projectId: number;
  cloginId: number;
  /** The parent's clogin_id for a child, else null. */
  parentCloginId: number | null;
  mainEmail: string | null;
}

type Row = Record<string, unknown>;

/**
 * The registration of `cloginId` in `projectId`; USER_NOT_FOUND (nothing written) when absent.
 * With `lock`, the registration row is locked first (a no-op UPDATE: portable, unlike FOR UPDATE),
 * so concurrent writes to one user run one after the other and read each other's results: a
 * trigger cannot fire twice because two calls both saw it unfired.
 */
export async function requireRegisteredUser(
  em: EntityManager,
  projectId: number,
  cloginId: number,
  options: { lock?: boolean } = {},
): Promise<RegisteredUser> {
  if (options.lock)
    await em.query(`UPDATE registration SET star = star WHERE project_id = ? AND person_id = ?`, [projectId, cloginId]);
  const rows: Row[] = await em.query(
    `SELECT r.uid, r.connected_to, p.main_email
       FROM registration r JOIN person p ON p.id = r.person_id
      WHERE r.project_id = ? AND r.person_id = ?`,
    [projectId, cloginId],
  );
  if (rows.length === 0) throw userNotFound(cloginId, projectId);
  const row = rows[0];
  return {
    uid: Number(row.uid),
    projectId,
    cloginId,
    parentCloginId: row.connected_to == null ? null : Number(row.connected_to),
    mainEmail: row.main_email == null ? null : String(row.main_email),
  };
}
