import { createConnection } from "mysql2/promise";
import { DataSource } from "typeorm";
import { seedRegistrants } from "../src/cli/seed/seed-registrants";
import { parseDatabaseUrl, redactUrl } from "../src/config/config";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { createRequestContext } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";
import { BENCH_GROUP_ID } from "./scenarios";

/**
 * The database the side-by-side benches measure: dropped, re-created, migrated and seeded with the
 * demo plus `users` registrants in the bench project, or taken as an earlier run left it (`reuse`).
 */
export async function prepareBenchDatabase(url: string, users: number, reuse: boolean): Promise<void> {
  const config = parseDatabaseUrl(url);
  if (config.kind === "sqlite") throw new Error("the baseline speaks mysql2: BENCH_DATABASE_URL must be MySQL/MariaDB");
  if (!reuse) {
    const admin = await createConnection({
      host: config.host,
      port: config.port,
      user: config.user,
      password: config.password,
    });
    await admin.query(`DROP DATABASE IF EXISTS \`${config.database}\``);
    await admin.query(`CREATE DATABASE \`${config.database}\` CHARACTER SET utf8mb4`);
    await admin.end();
  }
  const dataSource = new DataSource(buildDataSourceOptions(config));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: "each" });
  const seedStarted = Date.now();
  if (!reuse) {
    await loadFixture(createRequestContext(processStateOf(dataSource), "bench"), DEMO_FIXTURE);
    await seedRegistrants(processStateOf(dataSource), { groupId: BENCH_GROUP_ID, users });
  }
  const seeded = reuse ? "reused as seeded by an earlier run" : `demo + ${users} seeded registrants`;
  console.log(`database ${redactUrl(url)}: ${seeded} in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  await dataSource.destroy();
}
