import type { EntityManager } from "typeorm";
import type { AdminLevel } from "../entities";
import { selectRows, sqlPlaceholders } from "./sql-rows";

/** An admin of the organization as seen from one project. */
export interface AdminForProject {
  id: number;
  level: AdminLevel;
  /** Whether the admin has been given access to the project (owners reach every project regardless). */
  hasProjectAccess: boolean;
}

/** The given admins that belong to the organization, by id; others are absent. */
export async function readAdminsForProject(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  adminIds: readonly number[],
): Promise<Map<number, AdminForProject>> {
  if (adminIds.length === 0) return new Map();
  const rows = await selectRows(
    em,
    { id: "int", admin_level: "text", project_access: "int" },
    `SELECT a.id, a.admin_level,
            (SELECT COUNT(*) FROM admin_project_access x WHERE x.admin_id = a.id AND x.project_id = ?) AS project_access
       FROM admin a
      WHERE a.organization_id = ? AND a.id IN (${sqlPlaceholders(adminIds.length)})`,
    [projectId, organizationId, ...adminIds],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, level: row.admin_level as AdminLevel, hasProjectAccess: row.project_access > 0 },
    ]),
  );
}
