import type { Command } from "commander";
import { createRequestContext } from "../../domain/context";
import { createApiKey } from "../api-key.service";
import { writeLine } from "../cli-io";
import { positiveInteger, type CliSession } from "../cli-session";

export function registerApiKeyCommand(program: Command, session: CliSession): void {
  const apiKey = program.command("api-key").description("Manage API accounts.").summary("manage API accounts (create)");
  apiKey
    .command("create")
    .summary("create an API account and print its token once")
    .description("Create an active API account for an organization and print its token once (only its hash is stored).")
    .requiredOption("--org <id>", "organization id", positiveInteger())
    .requiredOption("--user <email>", "Api-User: the account's email address")
    .action(async (options: { org: number; user: string }) => {
      const dataSource = await session.database();
      const key = await createApiKey(createRequestContext(dataSource, "cli-api-key"), options.org, options.user);
      const { stdout, stderr } = session.io;
      writeLine(stdout, `Api-Id: ${key.apiId}`);
      writeLine(stdout, `Api-User: ${key.apiUser}`);
      writeLine(stdout, `Api-Token: ${key.apiToken}`);
      writeLine(stderr, "Keep the token now: it is not stored and cannot be shown again.");
    });
}
