import type { Command } from "commander";
import { erasePerson, exportPerson } from "../../domain/persons/person-data";
import { CliError } from "../cli-error";
import { writeLine } from "../cli-io";
import { positiveInteger, operatorContext, type CliSession, examples } from "../cli-session";

export function registerPersonCommand(program: Command, session: CliSession): void {
  const person = program
    .command("person")
    .description(
      "A person's data rights: export everything an organization holds about one person (clogin_id), or erase it (docs/data-rights.md).",
    )
    .summary("export or erase a person's data (GDPR articles 15 and 17)")
    .addHelpText(
      "after",
      examples(
        "npx regapi person export --org 1 --clogin-id 102670540 > person-102670540.json",
        "npx regapi person erase --org 1 --clogin-id 102670542 --yes",
      ),
    );
  const context = (requestId: string, organizationId: number) => operatorContext(session, requestId, organizationId);

  person
    .command("export")
    .summary("print everything held about a person as one JSON document")
    .addHelpText("after", examples("npx regapi person export --org 1 --clogin-id 102670540 > person-102670540.json"))
    .description("Print the person's data across the organization's projects as one JSON document (stdout).")
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .requiredOption("--clogin-id <id>", "the person (clogin_id)", positiveInteger())
    .action(async (options: { org: number; cloginId: number }) => {
      const document = await exportPerson(await context("cli-person-export", options.org), {
        groupId: null,
        cloginId: options.cloginId,
      });
      writeLine(session.io.stdout, JSON.stringify(document, null, 2));
    });

  person
    .command("erase")
    .summary("erase a person's data in one transaction (amounts of carts and payments are kept)")
    .addHelpText("after", examples("npx regapi person erase --org 1 --clogin-id 102670542 --yes"))
    .description(
      "Erase the person across the organization's projects in one transaction: personal data, field values, " +
        "emails, tags, comments, sessions and stored event payloads; cart lines and payments keep their amounts " +
        "without identity. Cannot be undone; --yes confirms.",
    )
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .requiredOption("--clogin-id <id>", "the person (clogin_id)", positiveInteger())
    .option("--yes", "confirm: the erasure cannot be undone")
    .action(async (options: { org: number; cloginId: number; yes?: boolean }) => {
      if (!options.yes) {
        throw new CliError(
          `regapi: erasing person ${options.cloginId} cannot be undone; run again with --yes to confirm (regapi person export first keeps a copy)`,
        );
      }
      const erasure = await erasePerson(await context("cli-person-erase", options.org), {
        groupId: null,
        cloginId: options.cloginId,
      });
      const { stdout } = session.io;
      writeLine(stdout, `erased person ${erasure.cloginId} of organization ${options.org}`);
      writeLine(stdout, `projects: ${erasure.groupIds.length > 0 ? erasure.groupIds.join(", ") : "none"}`);
      for (const [kind, count] of Object.entries(erasure.erased)) writeLine(stdout, `${kind}: ${count}`);
    });
}
