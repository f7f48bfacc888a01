import type { Command } from "commander";
import { createRequestContext } from "../../domain/context";
import { recountProjectCounters } from "../../domain/projects/project-counters";
import { writeLine } from "../cli-io";
import { positiveInteger, type CliSession, examples } from "../cli-session";

export function registerRecountCommand(program: Command, session: CliSession): void {
  program
    .command("recount")
    .summary("rebuild the per-project counters from the data")
    .addHelpText("after", examples("npx regapi recount --group 100909072", "npx regapi recount"))
    .description(
      "Rebuild the per-project counters (registrations, active, parents, children, excluded, order and paid cents) " +
        "from the registrations, cart lines and payments, in one transaction: after rows were written around the API " +
        "or to check them. Without --group every project is recounted.",
    )
    .option("--group <id>", "only this project (group_id)", positiveInteger())
    .action(async (options: { group?: number }) => {
      const started = process.hrtime.bigint();
      const projects = await recountProjectCounters(
        createRequestContext(await session.state(), "cli-recount"),
        options.group ?? null,
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      writeLine(
        session.io.stdout,
        `recounted ${projects.length === 1 ? `project ${projects[0]}` : `${projects.length} projects`} in ${seconds.toFixed(1)} s`,
      );
    });
}
