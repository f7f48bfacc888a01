import type { DataSource, EntityManager } from "typeorm";
import { DEFAULT_LOGIN_TOKEN_TTL_S, type Config } from "../config/config";
import type { GtidPosition } from "../db/gtid";
import type { KeyScope } from "./key-scope";
import type { ProcessState } from "./process-state";

/** Who is calling: an authenticated API account of one organization. */
export interface Principal {
  apiAccountId: number;
  apiUser: string;
  organizationId: number;
  /** What the key may do (src/domain/authorize.ts); absent for the CLI's own principal (full access). */
  scope?: KeyScope;
}

/**
 * A registrant signed in through a session token (contract §10): it reaches only its own
 * registration, in one project. Such a request has no API principal.
 */
export interface RegistrantPrincipal {
  /** The session row: logout deletes it, a refresh moves its expiry. */
  sessionId: number;
  /** When the session was opened; a refresh never takes it past SESSION_MAX_LIFETIME_SECONDS from then. */
  sessionCreatedAt: Date;
  uid: number;
  groupId: number;
  cloginId: number;
  organizationId: number;
  /** The parent's clogin_id when the registration is a child's (which forms it fills depends on it). */
  parentCloginId: number | null;
}

/** Settings a domain call may need from the process configuration. */
export interface DomainSettings {
  /** Lifetime of a login token from users `login`, in seconds (LOGIN_TOKEN_TTL_S). */
  loginTokenTtlSeconds: number;
  /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may resolve to loopback, private or link-local addresses. */
  webhookAllowPrivate: boolean;
}

/** The settings of a context built without a configuration (CLI, fixtures): the config's defaults. */
export const DEFAULT_DOMAIN_SETTINGS: DomainSettings = {
  loginTokenTtlSeconds: DEFAULT_LOGIN_TOKEN_TTL_S,
  webhookAllowPrivate: false,
};

/** The domain's share of the configuration. */
export const domainSettingsOf = (config: Pick<Config, "loginTokenTtlSeconds" | "delivery">): DomainSettings => ({
  loginTokenTtlSeconds: config.loginTokenTtlSeconds,
  webhookAllowPrivate: config.delivery.webhookAllowPrivate,
});

/**
 * First argument of every domain method. `em` is the transactional manager once inside
 * `inTransaction`; outside, reads go through the DataSource's manager.
 */
export interface RequestContext {
  readonly requestId: string;
  readonly principal: Principal | null;
  /** Set instead of `principal` when a registrant session calls (GraphQL `me`, `updateMe`). */
  readonly registrant?: RegistrantPrincipal | null;
  readonly settings?: DomainSettings;
  /** What lives for the process (replicas, SQLite's turns, rerun counts, walk positions, accounts). */
  readonly state: ProcessState;
  /** The primary's DataSource (the state's). */
  readonly dataSource: DataSource;
  readonly em: EntityManager;
  readonly inTransaction: boolean;
  /** Read-your-writes over replicas (docs/scale-out.md); absent: nothing asked, nothing reported. */
  readonly consistency?: ConsistencyNote;
}

/**
 * The request's own replication position: the one it asked for (the Regapi-Consistency header)
 * and the one its answer reflects (a write's commit, or what a read waited for), which the
 * transport returns in the same header.
 */
export interface ConsistencyNote {
  readonly requested: GtidPosition | null;
  position: GtidPosition | null;
}

/** The keys a principal's write positions are noted under: its API account, or its registrant session's person. */
export function consistencyKeysOf(ctx: RequestContext): string[] {
  if (ctx.registrant) return [`registrant:${ctx.registrant.uid}`];
  if (ctx.principal) return [`account:${ctx.principal.apiAccountId}`];
  return [];
}

export function createRequestContext(
  state: ProcessState,
  requestId: string,
  principal: Principal | null = null,
  extra: { registrant?: RegistrantPrincipal | null; settings?: DomainSettings; consistency?: ConsistencyNote } = {},
): RequestContext {
  const { dataSource } = state;
  return { requestId, principal, state, dataSource, em: dataSource.manager, inTransaction: false, ...extra };
}

export function requireRegistrant(ctx: RequestContext): RegistrantPrincipal {
  if (!ctx.registrant) throw new Error("registrant call without a registrant session");
  return ctx.registrant;
}

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new Error("domain call without an authenticated principal");
  return ctx.principal;
}
