import type { DataSource } from "typeorm";
import type { Config } from "./config/config";
import { createRequestContext } from "./domain/context";
import { processStateOf } from "./domain/process-state";
import { Organization } from "./entities";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "./fixtures/demo";
import { loadFixture } from "./fixtures/load-fixture";
import type { Logger } from "./http/logger";

/** Connects, brings the schema up to date (migrations on MySQL/MariaDB), and seeds demo data when asked. */
export async function prepareDatabase(
  dataSource: DataSource,
  config: Pick<Config, "database" | "demo">,
  logger: Logger,
): Promise<void> {
  if (!dataSource.isInitialized) await dataSource.initialize();
  if (config.database.kind !== "sqlite") {
    const applied = await dataSource.runMigrations({ transaction: "each" });
    if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.name) }, "migrations applied");
    return;
  }
  // The demo is for the zero-setup embedded database only: never on MySQL/MariaDB, never with DEMO=false.
  if (!config.demo) return;
  const ctx = createRequestContext(processStateOf(dataSource), "startup");
  if ((await ctx.em.count(Organization)) > 0) return;
  await loadFixture(ctx, DEMO_FIXTURE);
  logger.info(
    { apiId: DEMO_CREDENTIALS.apiId, apiUser: DEMO_CREDENTIALS.apiUser, apiToken: DEMO_CREDENTIALS.apiToken },
    "empty database: demo data loaded; use these demo credentials",
  );
}
