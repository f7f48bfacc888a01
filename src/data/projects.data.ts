import { In, type EntityManager, type FindOptionsWhere } from "typeorm";
import { Project } from "../entities";
import { cartLineAmountSql, paymentAmountSql } from "./account-sums";
import { chunked } from "./batch";
import { selectRows } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";

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

/** Per-project sums; projects without registrations, orders or payments are absent. */
export interface ProjectSums {
  users: number;
  activeUsers: number;
  orderCents: number;
  paidCents: number;
}

/** The projects a totals read covers: the organization's projects in scope, or one of them. */
export type TotalsSelection = { organizationId: number; scope: ArchivedScope } | { projectId: number };

// Each statement groups by project; no IN list, so the statement text and count are the same for
// 1 or 10 000 projects. Booleans compare as literals.
function projectCondition(selection: TotalsSelection): { sql: string; parameter: number } {
  if ("projectId" in selection) return { sql: "p.id = ?", parameter: selection.projectId };
  const archived =
    selection.scope === "active" ? " AND p.archived = 0" : selection.scope === "archived" ? " AND p.archived = 1" : "";
  return { sql: `p.organization_id = ?${archived}`, parameter: selection.organizationId };
}

/** Users, active users, order and payment sums per project, in three aggregate statements. */
export async function readProjectSums(
  em: EntityManager,
  selection: TotalsSelection,
): Promise<Map<number, ProjectSums>> {
  const { sql: where, parameter } = projectCondition(selection);
  const registrations = await selectRows(
    em,
    { project_id: "int", total_users: "int", active_users: "int" },
    `SELECT r.project_id AS project_id,
            COUNT(*) AS total_users,
            SUM(CASE WHEN ${statusExcludedSql("s", false)} THEN 1 ELSE 0 END) AS active_users
       FROM registration r
       JOIN project p ON p.id = r.project_id
       LEFT JOIN status s ON s.id = r.status_id
      WHERE ${where}
      GROUP BY r.project_id`,
    [parameter],
  );
  const orders = await centsPerProject(em, "cart_line c", cartLineAmountSql("c"), where, parameter);
  const payments = await centsPerProject(em, "payment pm", paymentAmountSql("pm"), where, parameter);

  const sums = new Map<number, ProjectSums>();
  const of = (projectId: number) => {
    let entry = sums.get(projectId);
    if (!entry) sums.set(projectId, (entry = { users: 0, activeUsers: 0, orderCents: 0, paidCents: 0 }));
    return entry;
  };
  for (const row of registrations) {
    const entry = of(row.project_id);
    entry.users = row.total_users;
    entry.activeUsers = row.active_users;
  }
  for (const row of orders) of(row.project_id).orderCents = row.cents;
  for (const row of payments) of(row.project_id).paidCents = row.cents;
  return sums;
}

/** The sum of `amount` over the rows of `table` (cart lines or payments, aliased) per project. */
async function centsPerProject(
  em: EntityManager,
  table: "cart_line c" | "payment pm",
  amount: string,
  where: string,
  parameter: number,
) {
  const alias = table.split(" ")[1];
  // MySQL returns SUM() as DECIMAL text; the "int" column kind reads both that and SQLite's integers.
  return selectRows(
    em,
    { project_id: "int", cents: "int" },
    `SELECT r.project_id AS project_id, SUM(${amount}) AS cents
       FROM ${table}
       JOIN registration r ON r.uid = ${alias}.registration_id
       JOIN project p ON p.id = r.project_id
      WHERE ${where}
      GROUP BY r.project_id`,
    [parameter],
  );
}
