import type { Command } from "commander";
import { In, type EntityManager } from "typeorm";
import { authenticate } from "../../auth/authenticate";
import { createRequestContext } from "../../domain/context";
import { Organization, Project } from "../../entities";
import { DEMO_CREDENTIALS, DEMO_FIXTURE, DEMO_ORGANIZATION } from "../../fixtures/demo";
import { loadFixture } from "../../fixtures/load-fixture";
import { CliError } from "../cli-error";
import { writeLine } from "../cli-io";
import { type CliSession, examples } from "../cli-session";
import { describeSummary } from "./load.command";

export function registerDemoCommand(program: Command, session: CliSession): void {
  program
    .command("demo")
    .summary("load the demo data and print its credentials")
    .addHelpText("after", examples("npx regapi demo"))
    .description(
      "Load the built-in demo data (Maple Camps) and print its API credentials. Run again, it says the demo is there and prints them again.",
    )
    .action(async () => {
      const dataSource = await session.database();
      const { stdout, stderr } = session.io;
      const existing = await dataSource.manager.findOne(Organization, { where: { id: DEMO_ORGANIZATION.id } });
      if (existing && !(await isTheDemo(dataSource.manager, existing))) {
        throw new CliError(
          `organization ${existing.id} ("${existing.name}") is already in this database and is not the demo; load the demo into an empty database`,
        );
      }
      if (existing) {
        writeLine(stdout, `the demo data is already there (organization ${existing.id} "${existing.name}")`);
      } else {
        const summary = await loadFixture(createRequestContext(await session.state(), "cli-demo"), DEMO_FIXTURE);
        writeLine(stdout, `demo data loaded: ${describeSummary(summary)}`);
      }
      writeLine(stdout, `Api-Id: ${DEMO_CREDENTIALS.apiId}`);
      writeLine(stdout, `Api-User: ${DEMO_CREDENTIALS.apiUser}`);
      writeLine(stdout, `Api-Token: ${DEMO_CREDENTIALS.apiToken}`);
      if (existing && !(await demoCredentialsWork(dataSource.manager))) {
        writeLine(
          stderr,
          `The demo token no longer authenticates (revoked or rotated); make a new key with regapi api-key create --org ${existing.id} --user <email>.`,
        );
      }
    });
}

/** The demo is there when its organization holds every demo project (a fixture may reuse its ids). */
async function isTheDemo(em: EntityManager, organization: Organization): Promise<boolean> {
  if (organization.name !== DEMO_ORGANIZATION.name) return false;
  const projects = await em.count(Project, {
    where: { id: In([...DEMO_ORGANIZATION.projectIds]), organizationId: organization.id },
  });
  return projects === DEMO_ORGANIZATION.projectIds.length;
}

async function demoCredentialsWork(em: EntityManager): Promise<boolean> {
  const headers: Record<string, string> = {
    "api-id": DEMO_CREDENTIALS.apiId,
    "api-user": DEMO_CREDENTIALS.apiUser,
    "api-token": DEMO_CREDENTIALS.apiToken,
  };
  return authenticate(em, (name) => headers[name]).then(
    () => true,
    () => false,
  );
}
