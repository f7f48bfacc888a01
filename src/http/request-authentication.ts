import type { Request } from "express";
import { authenticate, type HeaderReader } from "../auth/authenticate";
import type { Principal, RegistrantPrincipal } from "../domain/context";
import type { ProcessState } from "../domain/process-state";
import { DomainError } from "../domain/errors";
import { authenticateRegistrant } from "../domain/sessions/registrant-sessions";

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
export function authenticateRequest(req: Request, state: ProcessState): Promise<Authentication> {
  req.authentication ??= authenticate(
    state.dataSource.manager,
    (name) => req.get(name),
    Date.now(),
    (id) => state.accounts.find(id),
  ).then(
    (principal): Authentication => (req.settledAuthentication = { principal, failure: null }),
    (failure: unknown): Authentication => (req.settledAuthentication = { principal: null, failure }),
  );
  return req.authentication;
}

/** The principal of an authenticated request; throws the authentication failure otherwise. */
export async function requirePrincipalOf(req: Request, state: ProcessState): Promise<Principal> {
  const outcome = await authenticateRequest(req, state);
  if (outcome.principal) return outcome.principal;
  throw outcome.failure;
}

const API_KEY_HEADERS = ["api-id", "api-user", "api-token"];

/** The answer to a GraphQL request or WebSocket that sent no credentials, where both kinds are accepted. */
export const NO_CREDENTIALS =
  "Authentication required: send Authorization: Bearer <session token> for a registrant session, or Api-Id, Api-User and Api-Token for an API account.";

/** Who a request or a WebSocket connection speaks for: an API account or a registrant session. */
export type Caller = { principal: Principal; registrant: null } | { principal: null; registrant: RegistrantPrincipal };

/**
 * The one place credentials are told apart, for HTTP GraphQL and the WebSocket server alike:
 * `Authorization: Bearer <session token>` is a registrant session (contract §10) and replaces the
 * API headers rather than adding to them; otherwise the API key headers authenticate (through
 * `apiKey`, so an HTTP request reuses the outcome its rate limiter already has). Throws
 * UNAUTHENTICATED or STALE_TIMESTAMP as `authenticate` does.
 */
export async function authenticateCaller(
  state: ProcessState,
  header: HeaderReader,
  apiKey: () => Promise<Principal> = () =>
    authenticate(state.dataSource.manager, header, Date.now(), (id) => state.accounts.find(id)),
): Promise<Caller> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header("authorization") ?? "");
  if (bearer) return { principal: null, registrant: await authenticateRegistrant(state.dataSource.manager, bearer[1]) };
  // No credentials at all: both ways in are named (a portal learns of its session, a backend of its key).
  if (API_KEY_HEADERS.every((name) => !header(name))) throw new DomainError("UNAUTHENTICATED", NO_CREDENTIALS);
  return { principal: await apiKey(), registrant: null };
}
