import type { EntityManager } from "typeorm";
import type { Principal } from "../domain/context";
import { DomainError } from "../domain/errors";
import { parseScopeNames, type KeyScope } from "../domain/key-scope";
import { findApiAccount, type ApiAccountRecord } from "../data/api-accounts.data";
import { hashApiToken, presentedTokenDigest, tokenDigestMatches } from "./secrets";

/** Accepted clock difference for the optional `Timestamp` header. */
export const TIMESTAMP_WINDOW_SECONDS = 300;

/** Reads a request header by name, case-insensitively (express `req.get` does). */
export type HeaderReader = (name: string) => string | undefined;

const REFUSED = "Authentication failed: Api-Id, Api-User and Api-Token must match an active API account.";

// Compared against when no account matches, so a missing account costs the same as a wrong token.
const DECOY_HASH = hashApiToken("regapi-decoy-token");

/**
 * The one authentication of every interface (REST and GraphQL). Returns the principal or throws
 * UNAUTHENTICATED (never saying which header was wrong) or STALE_TIMESTAMP.
 */
export async function authenticate(
  em: EntityManager,
  header: HeaderReader,
  nowMs = Date.now(),
  findAccount: (id: number) => Promise<ApiAccountRecord | null> = (id) => findApiAccount(em, id),
): Promise<Principal> {
  const apiId = header("api-id")?.trim() ?? "";
  const apiUser = header("api-user")?.trim() ?? "";
  const apiToken = header("api-token") ?? "";

  const account = /^\d{1,10}$/.test(apiId) && apiUser && apiToken ? await findAccount(Number(apiId)) : null;
  // Both comparisons always run, so timing does not tell a current token from a replaced one;
  // the presented token is hashed once for both.
  const presented = presentedTokenDigest(apiToken);
  const currentOk = tokenDigestMatches(presented, account?.tokenHash ?? DECOY_HASH);
  const previousOk = tokenDigestMatches(presented, account?.previousTokenHash ?? DECOY_HASH);
  const inGrace = !!account?.previousTokenExpiresAt && account.previousTokenExpiresAt.getTime() > nowMs;
  const tokenOk = currentOk || (previousOk && inGrace && !!account?.previousTokenHash);
  const userOk = !!account && account.apiUser.toLowerCase() === apiUser.toLowerCase();
  if (!account || !tokenOk || !userOk || !account.active) {
    throw new DomainError("UNAUTHENTICATED", REFUSED);
  }

  checkTimestamp(header("timestamp"), nowMs);
  return {
    apiAccountId: account.id,
    apiUser: account.apiUser,
    organizationId: account.organizationId,
    scope: keyScopeOf(account),
  };
}

/**
 * The stored scope of a key. A stored name this version does not know grants nothing (it is
 * dropped), so a key is never given more than it was created with.
 */
export function keyScopeOf(account: Pick<ApiAccountRecord, "scopeOperations" | "scopeGroupIds">): KeyScope {
  const operations = account.scopeOperations === null ? null : (parseScopeNames(account.scopeOperations).names ?? null);
  const groupIds =
    account.scopeGroupIds === null
      ? null
      : account.scopeGroupIds
          .split(",")
          .map((part) => Number(part.trim()))
          .filter((id) => Number.isInteger(id) && id > 0);
  return { operations, groupIds };
}

function checkTimestamp(raw: string | undefined, nowMs: number): void {
  if (raw === undefined) return;
  const value = raw.trim();
  // Contract §17: legacy clients send seconds or, from JavaScript's Date.now(), milliseconds (13 digits).
  const seconds = /^\d{1,12}$/.test(value) ? Number(value) : /^\d{13}$/.test(value) ? Number(value) / 1000 : NaN;
  if (!Number.isFinite(seconds) || Math.abs(nowMs / 1000 - seconds) > TIMESTAMP_WINDOW_SECONDS) {
    throw new DomainError(
      "STALE_TIMESTAMP",
      `Timestamp must be Unix seconds (or milliseconds, 13 digits) within ${TIMESTAMP_WINDOW_SECONDS} s of the server clock.`,
    );
  }
}
