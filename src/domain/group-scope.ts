import { findProjectOfOrganization, type ProjectRecord } from "../data/projects.data";
import type { EntityManager } from "typeorm";
import { requirePrincipal, type Principal, type RequestContext } from "./context";
import { forbidden } from "./errors";
import { SCOPE_NAMES, type KeyScope, type ScopeName } from "./key-scope";

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

export { SCOPE_NAMES, type KeyScope, type ScopeName } from "./key-scope";

/**
 * Where an operation acts: one project; the whole organization (webhooks, a person's data); or
 * the projects the key reaches (a project listing, which `groupsInScope` then filters).
 */
export type ScopeTarget = { groupId: number } | "organization" | "projects-in-scope";

const describeOperations = (scope: KeyScope) => (scope.operations ? scope.operations.join(", ") : "all");

/**
 * The one check of an API key's scope, made by every domain operation an API account calls before
 * it reads or writes anything: the key must name the operation (or `read` for a read) and reach
 * the project. A key limited to projects cannot act organization-wide. Returns the principal.
 * Both transports answer the same FORBIDDEN, naming the missing scope.
 */
export function authorize(ctx: RequestContext, operation: ScopeName, target: ScopeTarget): Principal {
  const principal = requirePrincipal(ctx);
  const scope = principal.scope;
  if (!scope) return principal;
  if (scope.operations && !scope.operations.includes(operation)) {
    throw forbidden(`This API key lacks the scope "${operation}" (its scope: ${describeOperations(scope)}).`);
  }
  if (scope.groupIds) {
    if (target === "organization") {
      throw forbidden(
        `This API key lacks the organization-wide scope "${operation}" needs (it is limited to group_id ${scope.groupIds.join(", ")}).`,
      );
    }
    if (target !== "projects-in-scope" && !scope.groupIds.includes(target.groupId)) {
      throw forbidden(
        `This API key lacks the scope of group_id ${target.groupId} (it is limited to group_id ${scope.groupIds.join(", ")}).`,
      );
    }
  }
  return principal;
}

/** The projects a key reaches among `groupIds` (all of them for a key not limited to projects). */
export function groupsInScope<T extends { id: number }>(ctx: RequestContext, projects: readonly T[]): T[] {
  const groupIds = requirePrincipal(ctx).scope?.groupIds;
  return groupIds ? projects.filter((project) => groupIds.includes(project.id)) : [...projects];
}

/** Parses the stored or typed scope (`read,users.update`); problems name what is wrong. */
export function parseScopeNames(raw: string): { names: ScopeName[] | null; unknown: string[] } {
  const parts = raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.includes("all")) return { names: null, unknown: parts.filter((part) => part !== "all") };
  const unknown = parts.filter((part) => !(SCOPE_NAMES as readonly string[]).includes(part));
  return { names: [...new Set(parts.filter((part): part is ScopeName => !unknown.includes(part)))], unknown };
}

/** What an API key is and may do, as the key itself sees it (GraphQL `viewer`, REST account `whoami`). */
export interface CallerDescription {
  apiAccountId: number;
  apiUser: string;
  organizationId: number;
  /** The scope names granted; null: every operation. */
  operations: readonly ScopeName[] | null;
  /** The projects reached; null: every project of the organization. */
  groupIds: readonly number[] | null;
}

/**
 * The calling key and its scope. Needs no scope itself: a key limited to one write must still be
 * able to learn why it was refused. Never holds the token or its hash.
 */
export function describeCaller(ctx: RequestContext): CallerDescription {
  const principal = requirePrincipal(ctx);
  return {
    apiAccountId: principal.apiAccountId,
    apiUser: principal.apiUser,
    organizationId: principal.organizationId,
    operations: principal.scope?.operations ?? null,
    groupIds: principal.scope?.groupIds ?? null,
  };
}
