import type { Request, Response } from "express";
import { observationOf } from "./request-observation";

/** Endpoints that answer probes and scrapers: logged at debug, never rate limited. */
export const PROBE_PATHS: readonly string[] = ["/healthz", "/readyz", "/metrics"];

/** Label values with a bounded set: a known endpoint and action, else "other" (or "none"). */
export interface RequestLabels {
  endpoint: string;
  action: string;
}

/** The legacy endpoints and their action names (the REST router's tables, handed in by the app). */
export type KnownActions = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

const LEGACY_PATH = /^\/reg\/api2\/([a-z]+)\/?$/;

/** `path` is the request path without the query string (inside a router `req.path` is relative). */
export function requestLabels(req: Request, res: Response, path: string, endpoints: KnownActions): RequestLabels {
  const legacy = LEGACY_PATH.exec(path);
  if (legacy && Object.hasOwn(endpoints, legacy[1])) {
    const actions = endpoints[legacy[1]];
    const sent = (req.body as { action?: unknown } | undefined)?.action;
    const action = typeof sent !== "string" ? "none" : Object.hasOwn(actions, sent) ? sent : "other";
    return { endpoint: `/reg/api2/${legacy[1]}/`, action };
  }
  if (path === "/graphql") return { endpoint: "/graphql", action: observationOf(res).graphqlAction ?? "none" };
  if (PROBE_PATHS.includes(path)) return { endpoint: path, action: "none" };
  return { endpoint: "other", action: "none" };
}

/** The account a request was made for: the authenticated one, else the Api-Id it claimed (digits only). */
export function apiIdOf(req: Request): number | undefined {
  const principal = req.settledAuthentication?.principal;
  if (principal) return principal.apiAccountId;
  const claimed = req.get("api-id")?.trim();
  return claimed && /^\d{1,10}$/.test(claimed) ? Number(claimed) : undefined;
}
