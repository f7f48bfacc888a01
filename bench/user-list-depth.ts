import "reflect-metadata";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { startBenchApp } from "./bench-app";
import { seedRegistrants } from "../src/cli/seed/seed-registrants";
import { parseDatabaseUrl, redactUrl } from "../src/config/config";
import { analyzeBulkTables } from "../src/data/table-statistics.data";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { CountingSqlLogger } from "../src/db/sql-counter";
import { createRequestContext } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";

// get_user_list at depth: how long a page takes at position 0, in the middle and at the end,
// reached by a jump (a position never handed out) and by a walk (following
// next_starting_position), and how long a whole walk takes. Prints figures; never a test.
//   npm run build && node dist/bench/user-list-depth.js             # SQLite temp file, 10k registrants
//   node dist/bench/user-list-depth.js --million                    # 1,000,000 registrants
//   BENCH_DATABASE_URL=mariadb://root@127.0.0.1:3306/regapi_depth node dist/bench/user-list-depth.js
// On MySQL/MariaDB the named database must exist and be empty; it is migrated here.

const USERS = process.argv.includes("--million") ? 1_000_000 : Number(process.env.BENCH_USERS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
const GROUP_ID = 100909072;

const headers = {
  "content-type": "application/json",
  "api-id": DEMO_CREDENTIALS.apiId,
  "api-user": DEMO_CREDENTIALS.apiUser,
  "api-token": DEMO_CREDENTIALS.apiToken,
};

interface Page {
  total_users: number;
  next_starting_position: number | null;
  users: unknown[];
}

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const sql = new CountingSqlLogger();
  const url =
    process.env.BENCH_DATABASE_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "regapi-depth-")), "depth.sqlite")}`;
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url), { logger: sql }));
  await dataSource.initialize();
  if (dataSource.options.type !== "better-sqlite3") await dataSource.runMigrations({ transaction: "each" });
  // BENCH_REUSE=1 measures a database seeded by an earlier run (seeding 100k takes minutes).
  const reuse = process.env.BENCH_REUSE === "1";
  if (!reuse) await loadFixture(createRequestContext(processStateOf(dataSource), "bench"), DEMO_FIXTURE);
  const seedStarted = Date.now();
  if (!reuse) await seedRegistrants(processStateOf(dataSource), { groupId: GROUP_ID, users: USERS });
  // As regapi seed does: plans from fresh statistics.
  if (!reuse) await analyzeBulkTables(dataSource.manager);
  const seeded = reuse ? "reused as seeded by an earlier run" : `demo + ${USERS} seeded registrants`;
  console.log(`database ${redactUrl(url)}: ${seeded} in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

  const benchApp = await startBenchApp(dataSource);
  const endpoint = `${benchApp.origin}/reg/api2/users/`;

  async function page(position: number): Promise<{ page: Page; elapsed: number; statements: number }> {
    const before = sql.total;
    const started = performance.now();
    const response = await fetch(endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify({ action: "get_user_list", group_id: GROUP_ID, doc: { starting_position: position } }),
    });
    const body = (await response.json()) as Page;
    if (response.status !== 200)
      throw new Error(`position ${position}: HTTP ${response.status} ${JSON.stringify(body)}`);
    return { page: body, elapsed: performance.now() - started, statements: sql.total - before };
  }

  // Constant-time totals (per-project counters): get_project_list with group totals, and a GraphQL
  // users page with its totalCount, as the issue measures them at 10k and at 1M.
  const projectsEndpoint = endpoint.replace("/users/", "/projects/");
  const graphqlEndpoint = endpoint.replace("/reg/api2/users/", "/graphql");
  async function timed(url: string, body: unknown): Promise<number> {
    const started = performance.now();
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"'))
      throw new Error(`${url}: HTTP ${response.status} ${text}`);
    return performance.now() - started;
  }
  const sampled = async (body: () => Promise<number>) => {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await body());
    return p50(times);
  };
  const projectTotals = await sampled(() =>
    timed(projectsEndpoint, {
      action: "get_project_list",
      group_id: GROUP_ID,
      doc: { with_group_totals: true, with_archived: true },
    }),
  );
  const usersPage = await sampled(() =>
    timed(graphqlEndpoint, {
      query: "query($g: Int!) { users(groupId: $g, first: 50) { totalCount edges { node { uid } } } }",
      variables: { g: GROUP_ID },
    }),
  );
  console.log("totals");
  console.log(`  get_project_list with group totals: p50 ${ms(projectTotals)} over ${SAMPLES}`);
  console.log(`  GraphQL users page (50) with totalCount: p50 ${ms(usersPage)} over ${SAMPLES}\n`);

  // BENCH_ONLY_TOTALS=1 stops here (comparing two databases' totals back to back).
  if (process.env.BENCH_ONLY_TOTALS === "1") {
    await benchApp.stop();
    await dataSource.destroy();
    return;
  }

  const first = await page(0);
  const parents = first.page.total_users;
  const middle = Math.floor(parents / 2 / 50) * 50;
  const last = Math.max(0, Math.floor((parents - 1) / 50) * 50);
  console.log(`${parents} parents/individuals listed (excluded ones left out), 50 a page\n`);

  console.log("jump (a position never handed out: skips entries of the covering index)");
  for (const [label, position] of [
    ["position 0", 0],
    [`middle (${middle})`, middle],
    [`end (${last})`, last],
  ] as const) {
    const times: number[] = [];
    let statements = 0;
    for (let i = 0; i < SAMPLES; i++) {
      benchApp.forgetWalkPositions();
      const result = await page(position);
      times.push(result.elapsed);
      statements = result.statements;
    }
    console.log(`  ${label}: p50 ${ms(p50(times))} over ${SAMPLES}, ${statements} SQL statements`);
  }

  console.log("\nwalk (following next_starting_position from 0 to the end)");
  benchApp.forgetWalkPositions();
  const walkTimes: number[] = [];
  const walkStatements: number[] = [];
  const walkStarted = performance.now();
  let position: number | null = 0;
  let seen = 0;
  while (position !== null) {
    const result = await page(position);
    walkTimes.push(result.elapsed);
    walkStatements.push(result.statements);
    seen += result.page.users.length;
    position = result.page.next_starting_position;
  }
  const walkMs = performance.now() - walkStarted;
  const around = (index: number) => p50(walkTimes.slice(Math.max(0, index - 5), index + 5));
  const middlePage = Math.floor(walkTimes.length / 2);
  console.log(`  ${walkTimes.length} pages, ${seen} parents, total ${(walkMs / 1000).toFixed(1)} s`);
  console.log(`  p50 of the first 10 pages: ${ms(around(5))}`);
  console.log(`  p50 of 10 pages around the middle (page ${middlePage}): ${ms(around(middlePage))}`);
  console.log(`  p50 of the last 10 pages: ${ms(around(walkTimes.length - 5))}`);
  console.log(
    `  p50 of every page: ${ms(p50(walkTimes))}; SQL per page: first ${walkStatements[0]}, then ${walkStatements[1] ?? "-"}`,
  );

  await benchApp.stop();
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
