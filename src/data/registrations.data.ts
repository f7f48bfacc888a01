import type { EntityManager } from "typeorm";
import { selectRows } from "./sql-rows";

// SQL of registrations that the write commands of issue 8 need (statuses and families).

export async function findProjectStatus(em: EntityManager, projectId: number, statusId: number): Promise<boolean> {
  const rows = await selectRows(em, { id: "int" }, `SELECT id FROM status WHERE project_id = ? AND id = ?`, [
    projectId,
    statusId,
  ]);
  return rows.length > 0;
}

export async function setRegistrationStatus(em: EntityManager, uid: number, statusId: number | null): Promise<void> {
  await em.query(`UPDATE registration SET status_id = ? WHERE uid = ?`, [statusId, uid]);
}

/** Whether the project keeps families (parents with children). */
export async function isFamilyProject(em: EntityManager, projectId: number): Promise<boolean> {
  const rows = await selectRows(em, { family_system: "flag" }, `SELECT family_system FROM project WHERE id = ?`, [
    projectId,
  ]);
  return rows[0]?.family_system ?? false;
}

/** The registration of `cloginId` in the project: its connected_to tells a child from a parent. */
export async function findRegistration(
  em: EntityManager,
  projectId: number,
  cloginId: number,
): Promise<{ uid: number; connectedTo: number | null } | null> {
  const rows = await selectRows(
    em,
    { uid: "int", connected_to: "intOrNull" },
    `SELECT uid, connected_to FROM registration WHERE project_id = ? AND person_id = ?`,
    [projectId, cloginId],
  );
  return rows[0] ? { uid: rows[0].uid, connectedTo: rows[0].connected_to } : null;
}
