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

/** The registration of `cloginId` in `projectId`; USER_NOT_FOUND (nothing written) when absent. */
export async function requireRegisteredUser(em: EntityManager, projectId: number, cloginId: number): Promise<RegisteredUser> {
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
