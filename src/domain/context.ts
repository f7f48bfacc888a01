import type { DataSource, EntityManager } from "typeorm";

/** Who is calling: an authenticated API account of one organization. */
export interface Principal {
  apiAccountId: number;
  apiUser: string;
  organizationId: number;
}

/**
 * First argument of every domain method. `em` is the transactional manager once inside
 * `inTransaction`; outside, reads go through the DataSource's manager.
 */
export interface RequestContext {
  readonly requestId: string;
  readonly principal: Principal | null;
  readonly dataSource: DataSource;
  readonly em: EntityManager;
  readonly inTransaction: boolean;
}

export function createRequestContext(
  dataSource: DataSource,
  requestId: string,
  principal: Principal | null = null,
): RequestContext {
  return { requestId, principal, dataSource, em: dataSource.manager, inTransaction: false };
}

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new Error("domain call without an authenticated principal");
  return ctx.principal;
}
