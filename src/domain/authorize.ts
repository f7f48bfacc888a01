import { requirePrincipal, type Principal, type RequestContext } from "./context";
import { forbidden } from "./errors";
import type { KeyScope, ScopeName } from "./key-scope";

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
