import type { Command } from "commander";
import { createRequestContext, type RequestContext } from "../../domain/context";
import { SCOPE_NAMES } from "../../domain/key-scope";
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from "../api-key.service";
import { writeLine } from "../cli-io";
import { formatTable, positiveInteger, type CliSession, examples } from "../cli-session";
import { announceAccountChange } from "../../shared-state/account-changes";

export function registerApiKeyCommand(program: Command, session: CliSession): void {
  const apiKey = program
    .command("api-key")
    .description("Manage API accounts: create, list, revoke and rotate keys. Tokens are shown once and stored hashed.")
    .summary("manage API accounts (create, list, revoke, rotate)")
    .addHelpText(
      "after",
      examples("npx regapi api-key create --org 1 --user ci-bot@maple.test", "npx regapi api-key list --org 1"),
    );
  const actions = apiKeyActions(session);
  registerCreate(apiKey, session, actions);
  registerList(apiKey, session, actions);
  registerRevoke(apiKey, session, actions);
  registerRotate(apiKey, session, actions);
}

/** What every api-key subcommand does around its change: a request context, and telling running instances. */
interface ApiKeyActions {
  context(requestId: string): Promise<RequestContext>;
  announce(apiId: number): Promise<void>;
}

function apiKeyActions(session: CliSession): ApiKeyActions {
  const context = async (requestId: string) => createRequestContext(await session.state(), requestId);
  // Running instances keep accounts for ACCOUNT_CACHE_TTL_MS; with REDIS_URL they are told at once.
  const announce = async (apiId: number) => {
    const shared = session.config().sharedState;
    if (!shared.redisUrl) return;
    const outcome = await announceAccountChange({ ...shared, redisUrl: shared.redisUrl }, apiId);
    writeLine(
      session.io.stderr,
      "heardBy" in outcome
        ? `Running instances told through Redis: ${outcome.heardBy}.`
        : `Could not tell running instances through Redis (${outcome.failed}); they apply the change within ACCOUNT_CACHE_TTL_MS.`,
    );
  };
  return { context, announce };
}

/** `api-key create`: a new account; its token is printed here once and only its hash is stored. */
function registerCreate(apiKey: Command, session: CliSession, { context, announce }: ApiKeyActions): void {
  apiKey
    .command("create")
    .summary("create an API account and print its token once")
    .addHelpText(
      "after",
      examples(
        "npx regapi api-key create --org 1 --user ci-bot@maple.test",
        "npx regapi api-key create --org 1 --user reporting@maple.test --scope read --groups 100909072",
      ),
    )
    .description("Create an active API account for an organization and print its token once (only its hash is stored).")
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .requiredOption("--user <email>", "Api-User: the account's email address")
    .option(
      "--scope <names>",
      `limit the key to these operations, comma-separated: read, or write names (${SCOPE_NAMES.filter((name) => name !== "read").join(", ")}); default: all`,
    )
    .option("--groups <ids>", "limit the key to these projects (group_id), comma-separated; default: every project")
    .action(async (options: { org: number; user: string; scope?: string; groups?: string }) => {
      const key = await createApiKey(await context("cli-api-key"), options.org, options.user, {
        scope: options.scope,
        groups: options.groups,
      });
      await announce(key.apiId);
      const { stdout, stderr } = session.io;
      writeLine(stdout, `Api-Id: ${key.apiId}`);
      writeLine(stdout, `Api-User: ${key.apiUser}`);
      writeLine(stdout, `Api-Token: ${key.apiToken}`);
      writeLine(stdout, `Scope: ${key.scope ?? "all"}`);
      writeLine(stdout, `Groups: ${key.groups ?? "all"}`);
      writeLine(stderr, "Keep the token now: it is not stored and cannot be shown again.");
    });
}

/** `api-key list`: an organization's accounts as a table, never their tokens. */
function registerList(apiKey: Command, session: CliSession, { context }: ApiKeyActions): void {
  apiKey
    .command("list")
    .summary("list an organization's API accounts (never their tokens)")
    .addHelpText("after", examples("npx regapi api-key list --org 1"))
    .description("List the API accounts of an organization: Api-Id, Api-User, active, created, rotation grace.")
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .action(async (options: { org: number }) => {
      const keys = await listApiKeys(await context("cli-api-key-list"), options.org);
      const { stdout } = session.io;
      if (keys.length === 0) {
        writeLine(stdout, `organization ${options.org} has no API accounts; create one with regapi api-key create`);
        return;
      }
      const now = Date.now();
      const rows = keys.map((key) => [
        String(key.id),
        key.api_user,
        key.active ? "yes" : "no (revoked)",
        key.created_at.toISOString(),
        key.previous_token_expires_at && key.previous_token_expires_at.getTime() > now
          ? key.previous_token_expires_at.toISOString()
          : "-",
        key.scope_operations ?? "all",
        key.scope_group_ids ?? "all",
      ]);
      const header = ["api-id", "api-user", "active", "created", "old token valid until", "scope", "groups"];
      for (const line of formatTable(header, rows)) writeLine(stdout, line);
    });
}

/** `api-key revoke`: the account stops authenticating at once. */
function registerRevoke(apiKey: Command, session: CliSession, { context, announce }: ApiKeyActions): void {
  apiKey
    .command("revoke")
    .summary("deactivate an API account at once")
    .addHelpText("after", examples("npx regapi api-key revoke 15264"))
    .description("Deactivate an API account: its token (and one replaced by a rotation) stops working at once.")
    .argument("<api-id>", "the account's Api-Id", positiveInteger())
    .action(async (apiId: number) => {
      const revoked = await revokeApiKey(await context("cli-api-key-revoke"), apiId);
      await announce(apiId);
      writeLine(
        session.io.stdout,
        revoked.wasActive
          ? `revoked Api-Id ${revoked.apiId} (${revoked.apiUser}); its token no longer authenticates`
          : `Api-Id ${revoked.apiId} (${revoked.apiUser}) was already revoked; nothing changed`,
      );
    });
}

/** `api-key rotate`: a new token, printed once; the old one works for the grace period. */
function registerRotate(apiKey: Command, session: CliSession, { context, announce }: ApiKeyActions): void {
  apiKey
    .command("rotate")
    .summary("give an API account a new token; the old one works for a grace period")
    .addHelpText("after", examples("npx regapi api-key rotate 15264"))
    .description(
      "Give an active API account a new token, printed once. The old token keeps working for " +
        "API_KEY_ROTATION_GRACE_S seconds (default 3600) so clients can switch, then stops.",
    )
    .argument("<api-id>", "the account's Api-Id", positiveInteger())
    .action(async (apiId: number) => {
      const grace = session.config().apiKeyRotationGraceSeconds;
      const key = await rotateApiKey(await context("cli-api-key-rotate"), apiId, grace);
      await announce(apiId);
      const { stdout, stderr } = session.io;
      writeLine(stdout, `Api-Id: ${key.apiId}`);
      writeLine(stdout, `Api-User: ${key.apiUser}`);
      writeLine(stdout, `Api-Token: ${key.apiToken}`);
      writeLine(
        stderr,
        key.previousTokenValidUntil
          ? `The old token keeps working until ${key.previousTokenValidUntil.toISOString()} (API_KEY_ROTATION_GRACE_S=${grace}).`
          : "The old token stopped working now (API_KEY_ROTATION_GRACE_S=0).",
      );
      writeLine(stderr, "Keep the new token now: it is not stored and cannot be shown again.");
    });
}
