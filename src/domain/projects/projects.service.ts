import { sqlNumber } from "../../db/raw-rows";
import type { EntityManager, FindOptionsWhere } from "typeorm";
import { Project } from "../../entities";
import { z } from "zod";
import { flag, integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { requirePrincipal, type RequestContext } from "../context";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";

export const ProjectListQuery = z.object({
  /** Any project of the caller's organization (the legacy envelope always names one). */
  groupId: integerId,
  /** Only archived projects; wins over withArchived. */
  onlyArchived: flag(false),
  /** Adds archived projects to the non-archived ones. */
  withArchived: flag(false),
  withGroupTotals: flag(false),
});
export type ProjectListQuery = z.output<typeof ProjectListQuery>;

export interface ProjectTotals {
  /** Registrations in the project, children included. */
  totalUsers: number;
  /** Registrations whose status is not an excluding one (no status counts as active). */
  totalActiveUsers: number;
  /** Sum of cart lines, quantity × unit price. */
  totalOrderCents: number;
  totalPaidCents: number;
  totalBalanceCents: number;
}

export interface ProjectListing {
  id: number;
  name: string;
  currency: string;
  createdAt: Date;
  archived: boolean;
  totals?: ProjectTotals;
}

type ArchivedScope = "active" | "archived" | "all";

const scopeOf = (q: ProjectListQuery): ArchivedScope =>
  q.onlyArchived ? "archived" : q.withArchived ? "all" : "active";

/**
 * The projects of the caller's organization, sorted by id, with totals when asked. One
 * transaction, so the list and its totals come from one snapshot. The totals cost three
 * aggregate statements however many projects, registrations, cart lines and payments there are.
 *
 * Throws FORBIDDEN when `groupId` is not a project of the organization.
 */
export async function listProjects(
  ctx: RequestContext,
  draft: CommandDraft<typeof ProjectListQuery>,
): Promise<ProjectListing[]> {
  const q = parseCommand(ProjectListQuery, draft);
  return inTransaction(ctx, async (tx) => {
    await resolveOwnedProject(tx, q.groupId);
    const organizationId = requirePrincipal(tx).organizationId;
    const scope = scopeOf(q);
    const where: FindOptionsWhere<Project> = { organizationId };
    if (scope !== "all") where.archived = scope === "archived";
    const projects = await tx.em.find(Project, { where, order: { id: "ASC" } });

    const totals =
      q.withGroupTotals && projects.length > 0 ? await loadProjectTotals(tx.em, organizationId, scope) : null;
    return projects.map((project) => ({
      id: project.id,
      name: project.name,
      currency: project.currency,
      createdAt: project.createdAt,
      archived: project.archived,
      ...(totals ? { totals: totals.get(project.id) ?? emptyTotals() } : {}),
    }));
  });
}

const emptyTotals = (): ProjectTotals => ({
  totalUsers: 0,
  totalActiveUsers: 0,
  totalOrderCents: 0,
  totalPaidCents: 0,
  totalBalanceCents: 0,
});

type Row = Record<string, unknown>;

// Each statement groups by project over the organization's projects in scope; no IN list, so the
// statement text and count are the same for 1 or 10 000 projects. Booleans compare as literals.
const projectScope = (scope: ArchivedScope) =>
  `p.organization_id = ?${scope === "active" ? " AND p.archived = 0" : scope === "archived" ? " AND p.archived = 1" : ""}`;

const REGISTRATIONS_SQL = (scope: ArchivedScope) => `
SELECT r.project_id AS project_id,
       COUNT(*) AS total_users,
       SUM(CASE WHEN s.is_excluded = 1 THEN 0 ELSE 1 END) AS active_users
  FROM registration r
  JOIN project p ON p.id = r.project_id
  LEFT JOIN status s ON s.id = r.status_id
 WHERE ${projectScope(scope)}
 GROUP BY r.project_id`;

const ORDERS_SQL = (scope: ArchivedScope) => `
SELECT r.project_id AS project_id, SUM(c.quantity * c.unit_price_cents) AS order_cents
  FROM cart_line c
  JOIN registration r ON r.uid = c.registration_id
  JOIN project p ON p.id = r.project_id
 WHERE ${projectScope(scope)}
 GROUP BY r.project_id`;

const PAYMENTS_SQL = (scope: ArchivedScope) => `
SELECT r.project_id AS project_id, SUM(pm.amount_cents) AS paid_cents
  FROM payment pm
  JOIN registration r ON r.uid = pm.registration_id
  JOIN project p ON p.id = r.project_id
 WHERE ${projectScope(scope)}
 GROUP BY r.project_id`;

async function loadProjectTotals(
  em: EntityManager,
  organizationId: number,
  scope: ArchivedScope,
): Promise<Map<number, ProjectTotals>> {
  const registrations: Row[] = await em.query(REGISTRATIONS_SQL(scope), [organizationId]);
  const orders: Row[] = await em.query(ORDERS_SQL(scope), [organizationId]);
  const payments: Row[] = await em.query(PAYMENTS_SQL(scope), [organizationId]);

  const totals = new Map<number, ProjectTotals>();
  const of = (projectId: unknown) => {
    const id = sqlNumber(projectId);
    let entry = totals.get(id);
    if (!entry) totals.set(id, (entry = emptyTotals()));
    return entry;
  };
  for (const row of registrations) {
    const entry = of(row.project_id);
    entry.totalUsers = sqlNumber(row.total_users);
    entry.totalActiveUsers = sqlNumber(row.active_users);
  }
  // MySQL returns SUM() as DECIMAL text; Number() reads both that and SQLite's integers.
  for (const row of orders) of(row.project_id).totalOrderCents = sqlNumber(row.order_cents);
  for (const row of payments) of(row.project_id).totalPaidCents = sqlNumber(row.paid_cents);
  for (const entry of totals.values()) entry.totalBalanceCents = entry.totalOrderCents - entry.totalPaidCents;
  return totals;
}
