import type { EntityManager } from "typeorm";
import { generateApiToken, hashApiToken } from "../auth/secrets";
import {
  selectApiKeysOfOrganization,
  selectOrganizationSummaries,
  type ApiKeyListingRow,
  type OrganizationSummaryRow,
} from "../data/api-accounts.data";
import type { RequestContext } from "../domain/context";
import { DomainError, failOnProblems, validationFailed, type Problem } from "../domain/errors";
import { parseScopeNames, SCOPE_NAMES, type ScopeName } from "../domain/key-scope";
import { readProjectsOfOrganization } from "../data/projects.data";
import { inTransaction } from "../domain/transaction";
import { ApiAccount, Organization } from "../entities";
import { isEmailAddress } from "../common/email";

export interface NewApiKey {
  apiId: number;
  apiUser: string;
  /** The only time the token exists in clear: the database keeps its SHA-256 hash. */
  apiToken: string;
  /** The scope names, comma-separated; null: all. */
  scope?: string | null;
  /** The project ids, comma-separated; null: all. */
  groups?: string | null;
}

/** What a new key is limited to, as typed (`--scope read,users.update`, `--groups 1,2`); absent: no limit. */
export interface ApiKeyScopeOptions {
  scope?: string;
  groups?: string;
}

/**
 * Creates an active API account with a fresh random token for an existing organization,
 * limited to the given scope names and projects when asked (each project must be the
 * organization's).
 */
export async function createApiKey(
  ctx: RequestContext,
  organizationId: number,
  apiUser: string,
  limits: ApiKeyScopeOptions = {},
): Promise<NewApiKey> {
  const user = apiUser.trim();
  const problems: Problem[] = [];
  if (!isEmailAddress(user)) {
    problems.push({
      path: ["--user"],
      reason: "INVALID_EMAIL",
      message: `is not an email address: ${JSON.stringify(apiUser)}`,
    });
  }
  const operations = limits.scope === undefined ? null : readScopeOption(limits.scope, problems);
  const groupIds = limits.groups === undefined ? null : readGroupsOption(limits.groups, problems);
  failOnProblems(problems);
  const apiToken = generateApiToken();
  const created = await inTransaction(ctx, "api_keys.create", async ({ em }) => {
    if (!(await em.findOne(Organization, { where: { id: organizationId } }))) {
      throw new DomainError("NOT_FOUND", `organization ${organizationId} does not exist`);
    }
    if (groupIds) {
      const own = new Set((await readProjectsOfOrganization(em, organizationId, "all")).map((project) => project.id));
      const foreign = groupIds.filter((id) => !own.has(id));
      if (foreign.length > 0) {
        throw validationFailed([
          {
            path: ["--groups"],
            reason: "NOT_AVAILABLE",
            message: `names projects that are not organization ${organizationId}'s: ${foreign.join(", ")}`,
          },
        ]);
      }
    }
    const inserted = await em.insert(ApiAccount, {
      organizationId,
      apiUser: user,
      tokenHash: hashApiToken(apiToken),
      active: true,
      createdAt: new Date(),
      scopeOperations: operations === null ? null : operations.join(","),
      scopeGroupIds: groupIds === null ? null : groupIds.join(","),
    });
    return {
      apiId: Number(inserted.identifiers[0].id),
      apiUser: user,
      apiToken,
      scope: operations === null ? null : operations.join(","),
      groups: groupIds === null ? null : groupIds.join(","),
    };
  });
  // Once committed: a request of this process that looked the id up before must not keep "unknown".
  ctx.state.accounts.forget(created.apiId);
  return created;
}

function readScopeOption(raw: string, problems: Problem[]): ScopeName[] | null {
  const { names, unknown } = parseScopeNames(raw);
  if (unknown.length > 0) {
    problems.push({
      path: ["--scope"],
      reason: "NOT_ALLOWED",
      message: `names unknown scopes (${unknown.join(", ")}); known: all, ${SCOPE_NAMES.join(", ")}`,
    });
  } else if (names !== null && names.length === 0) {
    problems.push({ path: ["--scope"], reason: "EMPTY", message: "is empty; name at least one scope (or all)" });
  }
  return names;
}

function readGroupsOption(raw: string, problems: Problem[]): number[] {
  const parts = raw.split(",").map((part) => part.trim());
  const bad = parts.filter((part) => !/^\d{1,10}$/.test(part) || Number(part) < 1 || Number(part) > 2_147_483_647);
  if (bad.length > 0 || parts.length === 0) {
    problems.push({
      path: ["--groups"],
      reason: "INVALID_FORMAT",
      message: `must list project ids separated by commas; not an id: ${bad.join(", ")}`,
    });
    return [];
  }
  return [...new Set(parts.map(Number))];
}

/** Organizations with their number of projects and of active API keys, for `regapi org list`. */
export function listOrganizations(ctx: RequestContext): Promise<OrganizationSummaryRow[]> {
  return selectOrganizationSummaries(ctx.em);
}

/** The API keys of an organization (never their tokens); NOT_FOUND when it does not exist. */
export async function listApiKeys(ctx: RequestContext, organizationId: number): Promise<ApiKeyListingRow[]> {
  if (!(await ctx.em.findOne(Organization, { where: { id: organizationId } }))) {
    throw new DomainError("NOT_FOUND", `organization ${organizationId} does not exist`);
  }
  return selectApiKeysOfOrganization(ctx.em, organizationId);
}

export interface RevokedApiKey {
  apiId: number;
  apiUser: string;
  /** False when the key had been revoked before: revoking again changes nothing. */
  wasActive: boolean;
}

/** Deactivates an API account at once; a token replaced by a rotation stops working too. */
export async function revokeApiKey(ctx: RequestContext, apiId: number): Promise<RevokedApiKey> {
  const revoked = await inTransaction(ctx, "api_keys.revoke", async ({ em }) => {
    const account = await findAccount(em, apiId);
    await em.update(
      ApiAccount,
      { id: apiId },
      { active: false, previousTokenHash: null, previousTokenExpiresAt: null },
    );
    return { apiId, apiUser: account.apiUser, wasActive: account.active };
  });
  // Once committed, requests of this process stop authenticating at once (others within the cache TTL).
  ctx.state.accounts.forget(apiId);
  return revoked;
}

export interface RotatedApiKey extends NewApiKey {
  /** Until when the replaced token still authenticates; null when it stopped at once (no grace). */
  previousTokenValidUntil: Date | null;
}

/**
 * Gives an active API account a new token. The replaced token keeps working for `graceSeconds`
 * so clients can switch without an outage; a token replaced by an earlier rotation stops now.
 */
export async function rotateApiKey(
  ctx: RequestContext,
  apiId: number,
  graceSeconds: number,
  now = new Date(),
): Promise<RotatedApiKey> {
  const apiToken = generateApiToken();
  const rotated = await inTransaction(ctx, "api_keys.rotate", async ({ em }) => {
    const account = await findAccount(em, apiId);
    if (!account.active) {
      throw new DomainError(
        "CONFLICT",
        `API account ${apiId} is revoked; a revoked key cannot be rotated (create a new one with api-key create)`,
      );
    }
    const previousTokenValidUntil = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
    await em.update(
      ApiAccount,
      { id: apiId },
      {
        tokenHash: hashApiToken(apiToken),
        previousTokenHash: previousTokenValidUntil ? account.tokenHash : null,
        previousTokenExpiresAt: previousTokenValidUntil,
      },
    );
    return { apiId, apiUser: account.apiUser, apiToken, previousTokenValidUntil };
  });
  ctx.state.accounts.forget(apiId);
  return rotated;
}

/**
 * The account, locked for the rest of the transaction (MySQL/MariaDB; SQLite's transactions take
 * turns): a rotation and a revocation, or two rotations, then run one after the other, and the
 * second starts from the first's token instead of overwriting it (docs/locking.md).
 */
async function findAccount(em: EntityManager, apiId: number): Promise<ApiAccount> {
  const account = await em.findOne(ApiAccount, {
    where: { id: apiId },
    ...(em.connection.options.type === "better-sqlite3" ? {} : { lock: { mode: "pessimistic_write" as const } }),
  });
  if (!account) throw new DomainError("NOT_FOUND", `API account ${apiId} does not exist`);
  return account;
}
