import { z } from "zod";
import {
  readProjects,
  readProjectsOfOrganization,
  type ArchivedScope,
  type ProjectRecord,
  type TotalsSelection,
} from "../../data/projects.data";
import { accountTotals, type AccountTotals } from "../account-totals";
import { flag, integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import type { RequestContext } from "../context";
import { DomainError } from "../errors";
import { authorize, groupsInScope } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import {
  emptyCounters,
  projectTotalsOf,
  readProjectCounters,
  readProjectsWithCounters,
  type ProjectCounters,
} from "./project-counters";

/** The legacy list: addressed through one project of the organization (the envelope always names one). */
export const ProjectListQuery = z.object({
  /** Any project of the caller's organization. */
  groupId: integerId,
  /** Only archived projects; wins over withArchived. */
  onlyArchived: flag(false),
  /** Adds archived projects to the non-archived ones. */
  withArchived: flag(false),
  withGroupTotals: flag(false),
});
export type ProjectListQuery = z.output<typeof ProjectListQuery>;

/** Which of the organization's projects to list. */
export type ProjectScopeQuery = Omit<ProjectListQuery, "groupId">;

export interface ProjectTotals extends AccountTotals {
  /** Registrations in the project, children included. */
  totalUsers: number;
  /** Registrations whose status is not an excluding one (no status counts as active). */
  totalActiveUsers: number;
}

export interface ProjectListing {
  id: number;
  name: string;
  currency: string;
  createdAt: Date;
  archived: boolean;
  totals?: ProjectTotals;
}

const scopeOf = (q: ProjectScopeQuery): ArchivedScope =>
  q.onlyArchived ? "archived" : q.withArchived ? "all" : "active";

/**
 * The projects of the caller's organization, sorted by id, with totals when asked: one read of
 * the projects with their counters, whose cost does not grow with registrations, cart lines or
 * payments.
 */
export async function listOrganizationProjects(ctx: RequestContext, q: ProjectScopeQuery): Promise<ProjectListing[]> {
  return inTransaction(ctx, "projects.get_project_list", async (tx) => {
    // A key limited to projects lists those it reaches.
    const organizationId = authorize(tx, "read", "projects-in-scope").organizationId;
    const projects = groupsInScope(tx, await readListed(tx, organizationId, q));
    return projects.map(({ project, counters }) => listingOf(project, counters));
  });
}

/**
 * The legacy `get_project_list`: the organization's projects as listOrganizationProjects gives
 * them. Throws FORBIDDEN when `groupId` is not a project of the organization. One statement, the
 * list with its counters, and no transaction; a listed `groupId` proves ownership, so only one
 * outside the list (archived, or foreign) costs its own check.
 */
export async function listProjects(
  ctx: RequestContext,
  draft: CommandDraft<typeof ProjectListQuery>,
): Promise<ProjectListing[]> {
  return listProjectsOf(ctx, parseCommand(ProjectListQuery, draft));
}

/** listProjects of a query its caller has already parsed (the legacy answer echoes its flags). */
export async function listProjectsOf(ctx: RequestContext, q: ProjectListQuery): Promise<ProjectListing[]> {
  const organizationId = authorize(ctx, "read", { groupId: q.groupId }).organizationId;
  const projects = groupsInScope(ctx, await readListed(ctx, organizationId, q));
  if (!projects.some(({ project }) => project.id === q.groupId)) await resolveOwnedProject(ctx, q.groupId);
  return projects.map(({ project, counters }) => listingOf(project, counters));
}

/** The organization's projects in the query's scope, with their counters (one statement) when it asks for totals. */
async function readListed(
  ctx: RequestContext,
  organizationId: number,
  q: ProjectScopeQuery,
): Promise<{ id: number; project: ProjectRecord; counters: ProjectCounters | null }[]> {
  const scope = scopeOf(q);
  if (q.withGroupTotals)
    return (await readProjectsWithCounters(ctx.em, organizationId, scope)).map(({ project, counters }) => ({
      id: project.id,
      project,
      counters,
    }));
  return (await readProjectsOfOrganization(ctx.em, organizationId, scope)).map((project) => ({
    id: project.id,
    project,
    counters: null,
  }));
}

/** One project of the organization, archived or not, with totals when asked. Throws FORBIDDEN for any other id. */
export async function getProject(
  ctx: RequestContext,
  groupId: number,
  options: { withGroupTotals: boolean },
): Promise<ProjectListing> {
  if (ctx.registrant) return registrantProject(ctx, groupId);
  return inTransaction(ctx, "projects.get_project", async (tx) => {
    authorize(tx, "read", { groupId });
    const project = await resolveOwnedProject(tx, groupId);
    const selection: TotalsSelection = { projectId: project.id };
    const sums = options.withGroupTotals ? await readProjectCounters(tx.em, selection) : null;
    return listingOf(project, sums ? (sums.get(project.id) ?? emptyCounters()) : null);
  });
}

/** A registrant session's own project, without totals (those are over every registration); NOT_FOUND for any other. */
async function registrantProject(ctx: RequestContext, groupId: number): Promise<ProjectListing> {
  const project =
    ctx.registrant?.groupId === groupId ? (await readProjects(ctx.em, [groupId])).get(groupId) : undefined;
  if (!project) throw new DomainError("NOT_FOUND", `project ${groupId} is not your registration's project`);
  return listingOf(project, null);
}

function listingOf(project: ProjectRecord, counters: ProjectCounters | null): ProjectListing {
  const listing: ProjectListing = {
    id: project.id,
    name: project.name,
    currency: project.currency,
    createdAt: project.createdAt,
    archived: project.archived,
  };
  if (counters) listing.totals = totalsOf(counters);
  return listing;
}

function totalsOf(counters: ProjectCounters): ProjectTotals {
  const totals = projectTotalsOf(counters);
  return {
    totalUsers: totals.users,
    totalActiveUsers: totals.activeUsers,
    ...accountTotals(totals.orderCents, totals.paidCents),
  };
}
