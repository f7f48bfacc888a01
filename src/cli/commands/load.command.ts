import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { analyzeBulkTables } from "../../data/table-statistics.data";
import { createRequestContext } from "../../domain/context";
import { loadFixture, type FixtureSummary } from "../../fixtures/load-fixture";
import { CliError } from "../cli-error";
import { writeLine } from "../cli-io";
import { type CliSession, examples } from "../cli-session";

export function registerLoadCommand(program: Command, session: CliSession): void {
  program
    .command("load")
    .summary("load a fixture file in one transaction")
    .addHelpText("after", examples("npx regapi load ./my-fixture.json"))
    .argument("<fixture.json>", "fixture file (format: docs/fixtures.md)")
    .description(
      "Load a fixture in one transaction. A bad fixture changes nothing; the error names the offending member, e.g. organizations[0].projects[0].forms[0].fields[0].type.",
    )
    .action(async (file: string) => {
      const fixture = await readFixtureFile(file);
      const dataSource = await session.database();
      const summary = await loadFixture(createRequestContext(await session.state(), "cli-load"), fixture);
      // Fresh statistics, so the first requests after a load plan with the loaded rows in view.
      await analyzeBulkTables(dataSource.manager);
      writeLine(session.io.stdout, `loaded ${file}: ${describeSummary(summary)}`);
    });
}

export async function readFixtureFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`${file}: cannot read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${file}: invalid JSON: ${(error as Error).message}`);
  }
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

export function describeSummary(summary: FixtureSummary): string {
  return [
    plural(summary.organizations, "organization"),
    plural(summary.apiAccounts, "API account"),
    plural(summary.projects, "project"),
    plural(summary.forms, "form"),
    plural(summary.users, "registered user"),
  ].join(", ");
}
