import type { Command } from "commander";
import { createRequestContext } from "../../domain/context";
import { listOrganizations } from "../api-key.service";
import { writeLine } from "../cli-io";
import { formatTable, type CliSession, examples } from "../cli-session";

export function registerOrgCommand(program: Command, session: CliSession): void {
  const org = program
    .command("org")
    .description("Inspect organizations.")
    .summary("inspect organizations (list)")
    .addHelpText("after", examples("npx regapi org list"));
  org
    .command("list")
    .summary("list organizations with their ids, projects and active API keys")
    .addHelpText("after", examples("npx regapi org list"))
    .description("List every organization: its id (for api-key create/list --org), name, projects and active keys.")
    .action(async () => {
      const organizations = await listOrganizations(createRequestContext(await session.state(), "cli-org-list"));
      const { stdout } = session.io;
      if (organizations.length === 0) {
        writeLine(stdout, "no organizations yet; load some with `regapi load <file>` or `regapi demo`");
        return;
      }
      const rows = organizations.map((o) => [String(o.id), o.name, String(o.projects), String(o.active_keys)]);
      for (const line of formatTable(["id", "name", "projects", "active keys"], rows)) writeLine(stdout, line);
    });
}
