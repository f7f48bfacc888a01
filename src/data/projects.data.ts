import { In, type EntityManager, type FindOptionsWhere } from "typeorm";
import { Project } from "../entities";
import { chunked } from "./batch";
import { selectRows } from "./sql-rows";

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
  if (!row) return null;
  const project: ProjectRecord = Object.assign(new Project(), {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    currency: row.currency,
    createdAt: row.created_at,
    archived: row.archived,
    familySystem: row.family_system,
  });
  return project;
}

export async function findProject(em: EntityManager, projectId: number): Promise<ProjectRecord | null> {
  return em.findOne(Project, { where: { id: projectId } });
}

/** The organization's projects in scope, by id. */
export async function readProjectsOfOrganization(
  em: EntityManager,
  organizationId: number,
  scope: ArchivedScope,
): Promise<ProjectRecord[]> {
  const where: FindOptionsWhere<Project> = { organizationId };
  if (scope !== "all") where.archived = scope === "archived";
  return em.find(Project, { where, order: { id: "ASC" } });
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
