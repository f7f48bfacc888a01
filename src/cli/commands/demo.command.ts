import type { Command } from "commander";
import { createRequestContext } from "../../domain/context";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../../fixtures/demo";
import { loadFixture } from "../../fixtures/load-fixture";
import { writeLine } from "../cli-io";
import type { CliSession } from "../cli-session";
import { describeSummary } from "./load.command";

export function registerDemoCommand(program: Command, session: CliSession): void {
  program
    .command("demo")
    .summary("load the demo data and print its credentials")
    .description("Load the built-in demo data (Maple Camps) and print its API credentials.")
    .action(async () => {
      const dataSource = await session.database();
      const summary = await loadFixture(createRequestContext(dataSource, "cli-demo"), DEMO_FIXTURE);
      const { stdout } = session.io;
      writeLine(stdout, `demo data loaded: ${describeSummary(summary)}`);
      writeLine(stdout, `Api-Id: ${DEMO_CREDENTIALS.apiId}`);
      writeLine(stdout, `Api-User: ${DEMO_CREDENTIALS.apiUser}`);
      writeLine(stdout, `Api-Token: ${DEMO_CREDENTIALS.apiToken}`);
    });
}
