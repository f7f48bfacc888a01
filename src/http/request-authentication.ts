import type { Request } from "express";
import type { DataSource } from "typeorm";
import { findCachedApiAccount } from "../auth/account-cache";
import { authenticate } from "../auth/authenticate";
import type { Principal } from "../domain/context";

/** The outcome of authenticating one request: a principal, or why it failed. */
export type Authentication = { principal: Principal; failure: null } | { principal: null; failure: unknown };

declare module "express-serve-static-core" {
  interface Request {
    /** Set by the first authenticateRequest call; later calls (rate limiter, REST, GraphQL) reuse it. */
    authentication?: Promise<Authentication>;
    /** The same outcome once settled, for synchronous readers (rate-limit keys, access log). */
    settledAuthentication?: Authentication;
  }
}

/**
 * Authenticates a request once, whoever asks first: the rate limiter keys by account before the
 * REST router or the GraphQL context need the principal, and no request pays for two lookups.
 */
export function authenticateRequest(req: Request, dataSource: DataSource): Promise<Authentication> {
  req.authentication ??= authenticate(
    dataSource.manager,
    (name) => req.get(name),
    Date.now(),
    (id) => findCachedApiAccount(dataSource, id),
  ).then(
    (principal): Authentication => (req.settledAuthentication = { principal, failure: null }),
    (failure: unknown): Authentication => (req.settledAuthentication = { principal: null, failure }),
  );
  return req.authentication;
}

/** The principal of an authenticated request; throws the authentication failure otherwise. */
export async function requirePrincipalOf(req: Request, dataSource: DataSource): Promise<Principal> {
  const outcome = await authenticateRequest(req, dataSource);
  if (outcome.principal) return outcome.principal;
  throw outcome.failure;
}
