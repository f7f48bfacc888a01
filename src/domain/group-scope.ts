import { findProjectOfOrganization, type ProjectRecord } from "../data/projects.data";
import type { EntityManager } from "typeorm";
import { requirePrincipal, type RequestContext } from "./context";
import { forbidden } from "./errors";

/**
 * Resolves a `group_id` only when the caller's organization owns it. A project of another
 * organization and one that does not exist get the same answer, so ids cannot be probed.
 */
export async function resolveOwnedProject(
  ctx: RequestContext,
  groupId: number,
  em: EntityManager = ctx.em,
): Promise<ProjectRecord> {
  const principal = requirePrincipal(ctx);
  const project = await findProjectOfOrganization(em, groupId, principal.organizationId);
  if (!project) throw notOwnedProject(groupId);
  return project;
}

/** The FORBIDDEN of a group_id the caller's organization does not own (or that does not exist). */
export const notOwnedProject = (groupId: number) =>
  forbidden(`group_id ${groupId} is not a project of your organization`);
