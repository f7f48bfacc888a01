import { In, type EntityManager } from "typeorm";
import { Project } from "../entities";
import { chunked } from "./batch";
import { decodeRows, selectRows, type RowOf } from "./sql-rows";

/** Which of an organization's projects a read covers. */
export type ArchivedScope = "active" | "archived" | "all";

/** The project read model is the entity itself: every column is plain data. */
export type ProjectRecord = Project;

const PROJECT_SHAPE = {
  id: "int",
  organization_id: "int",
  name: "text",
  currency: "text",
  created_at: "date",
  archived: "flag",
  family_system: "flag",
} as const;

/**
 * The project if the organization owns it, else null (a missing id reads the same). Hand-written
 * rather than `findOne`: every request naming a group_id runs it, and the query builder costs
 * more CPU than the statement.
 */
export async function findProjectOfOrganization(
  em: EntityManager,
  projectId: number,
  organizationId: number,
): Promise<ProjectRecord | null> {
  const [row] = await selectRows(
    em,
    PROJECT_SHAPE,
    `SELECT id, organization_id, name, currency, created_at, archived, family_system
       FROM project WHERE id = ? AND organization_id = ?`,
    [projectId, organizationId],
  );
  return row ? projectOfRow(row) : null;
}

/** The columns of a project read, on alias `p`, for a statement that reads them with other data. */
export const PROJECT_COLUMNS_SQL =
  "p.id, p.organization_id, p.name, p.currency, p.created_at, p.archived, p.family_system";

/** The project of a row that selected PROJECT_COLUMNS_SQL. */
export const projectOfColumns = (raw: Record<string, unknown>, sql: string): ProjectRecord =>
  projectOfRow(decodeRows(PROJECT_SHAPE, [raw], sql)[0]);

function projectOfRow(row: RowOf<typeof PROJECT_SHAPE>): ProjectRecord {
  return Object.assign(new Project(), {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    currency: row.currency,
    createdAt: row.created_at,
    archived: row.archived,
    familySystem: row.family_system,
  });
}

export async function findProject(em: EntityManager, projectId: number): Promise<ProjectRecord | null> {
  return em.findOne(Project, { where: { id: projectId } });
}

/**
 * The organization's projects in scope, by id. Hand-written like `findProjectOfOrganization`:
 * get_project_list runs it on every call, and `find` spent more CPU building the statement than
 * the rest of the request's own code.
 */
export async function readProjectsOfOrganization(
  em: EntityManager,
  organizationId: number,
  scope: ArchivedScope,
): Promise<ProjectRecord[]> {
  const inScope = scope === "all" ? "" : " AND archived = ?";
  const parameters: unknown[] = scope === "all" ? [organizationId] : [organizationId, scope === "archived" ? 1 : 0];
  const rows = await selectRows(
    em,
    PROJECT_SHAPE,
    `SELECT id, organization_id, name, currency, created_at, archived, family_system
       FROM project WHERE organization_id = ?${inScope} ORDER BY id ASC`,
    parameters,
  );
  return rows.map(projectOfRow);
}

/** Projects by id (any organization: callers pass ids they reached through an owned project). */
export async function readProjects(
  em: EntityManager,
  projectIds: readonly number[],
): Promise<Map<number, ProjectRecord>> {
  const projects = new Map<number, ProjectRecord>();
  await chunked(projectIds, async (chunk) => {
    for (const project of await em.findBy(Project, { id: In(chunk) })) projects.set(project.id, project);
  });
  return projects;
}

/** The projects a totals read covers: the organization's projects in scope, or one of them. */
export type TotalsSelection = { organizationId: number; scope: ArchivedScope } | { projectId: number };
