import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { startBenchApp } from "./bench-app";
import { seedRegistrants } from "../src/cli/seed/seed-registrants";
import { parseDatabaseUrl, redactUrl } from "../src/config/config";
import { sqlDate } from "../src/data/events.data";
import { analyzeBulkTables } from "../src/data/table-statistics.data";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { CountingSqlLogger } from "../src/db/sql-counter";
import { createRequestContext } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { encodeFeedCursor } from "../src/domain/events/event-feed";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";

// The sync reads of issue 25 at scale: a page of the event feed (REST events list, GraphQL events)
// at the start, the middle and the end of N events, and get_user_list modified_since (first page,
// a walk's pages, the whole walk) against the plain list the only way to catch up before it.
// Prints figures; never a test.
//   npm run build && node dist/bench/sync-reads.js               # SQLite temp file, 10k registrants, 10k events
//   node dist/bench/sync-reads.js --million                      # 1,000,000 of each
//   BENCH_DATABASE_URL=mariadb://root@127.0.0.1:3306/regapi_sync node dist/bench/sync-reads.js
// On MySQL/MariaDB the named database must exist and be empty; it is migrated here
// (BENCH_REUSE=1 measures one an earlier run seeded).

const N = process.argv.includes("--million") ? 1_000_000 : Number(process.env.BENCH_USERS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
const GROUP_ID = 100909072;
const DAY_MS = 24 * 3600 * 1000;

const headers = {
  "content-type": "application/json",
  "api-id": DEMO_CREDENTIALS.apiId,
  "api-user": DEMO_CREDENTIALS.apiUser,
  "api-token": DEMO_CREDENTIALS.apiToken,
};
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;
const wire = (date: Date) => date.toISOString().slice(0, 19).replace("T", " ");

/** N user.updated events of the project, already placed in the feed (positions 1..N), in bulk. */
async function seedEvents(dataSource: DataSource, count: number, now: Date): Promise<void> {
  const em = dataSource.manager;
  const chunk = 500;
  for (let start = 0; start < count; start += chunk) {
    const rows = Math.min(chunk, count - start);
    const parameters: unknown[] = [];
    for (let i = 0; i < rows; i++) {
      const position = start + i + 1;
      const at = sqlDate(em, new Date(now.getTime() - (count - position) * 1000));
      parameters.push(
        randomUUID(),
        GROUP_ID,
        "user.updated",
        JSON.stringify({ clogin_id: position, field_ids: ["f_301_1"] }),
        JSON.stringify({ type: "api_account", api_account_id: 15263 }),
        at,
        at,
        position,
      );
    }
    await em.query(
      `INSERT INTO event (public_id, organization_id, group_id, type, data, actor, created_at, dispatched_at, feed_position)
       VALUES ${Array.from({ length: rows }, () => "(?, 1, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      parameters,
    );
  }
  await em.query(`DELETE FROM event_feed`);
  await em.query(`INSERT INTO event_feed (id, last_position, pruned_through) VALUES (1, ?, 0)`, [count]);
}

async function main(): Promise<void> {
  const sql = new CountingSqlLogger();
  const url =
    process.env.BENCH_DATABASE_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "regapi-sync-")), "sync.sqlite")}`;
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url), { logger: sql }));
  await dataSource.initialize();
  if (dataSource.options.type !== "better-sqlite3") await dataSource.runMigrations({ transaction: "each" });
  const reuse = process.env.BENCH_REUSE === "1";
  const now = new Date();
  const seedStarted = Date.now();
  if (!reuse) {
    await loadFixture(createRequestContext(processStateOf(dataSource), "bench"), DEMO_FIXTURE);
    await seedRegistrants(processStateOf(dataSource), { groupId: GROUP_ID, users: N });
    await seedEvents(dataSource, N, now);
    await analyzeBulkTables(dataSource.manager);
  }
  const seeded = reuse ? "reused" : `demo + ${N} registrants + ${N} events`;
  console.log(`database ${redactUrl(url)}: ${seeded} in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s\n`);

  const benchApp = await startBenchApp(dataSource);
  const base = `${benchApp.origin}`;

  async function post(
    path: string,
    body: unknown,
  ): Promise<{ body: Record<string, unknown>; elapsed: number; statements: number }> {
    const before = sql.total;
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    const parsed = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200 || parsed.errors)
      throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(parsed)}`);
    return { body: parsed, elapsed: performance.now() - started, statements: sql.total - before };
  }
  async function sampled(label: string, run: () => Promise<{ elapsed: number; statements: number }>) {
    const times: number[] = [];
    let statements = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const result = await run();
      times.push(result.elapsed);
      statements = result.statements;
    }
    console.log(`  ${label}: p50 ${ms(p50(times))} over ${SAMPLES}, ${statements} SQL statements`);
  }

  const [{ n: events }] = await dataSource.query(`SELECT COUNT(*) AS n FROM event`);
  console.log(`event feed (${Number(events)} events; pages of 100)`);
  for (const [label, position] of [
    ["start", 0],
    ["middle", Math.floor(N / 2)],
    ["end", N - 100],
  ] as const) {
    const after = position === 0 ? undefined : encodeFeedCursor(position);
    await sampled(`REST events list, ${label} (after position ${position})`, () =>
      post("/reg/api2/events/", { action: "list", doc: { after, limit: 100 } }),
    );
    await sampled(`GraphQL events, ${label}`, () =>
      post("/graphql", {
        query:
          "query($a: String) { events(after: $a, first: 100) { edges { cursor node { eventId type data actor } } pageInfo { endCursor } } }",
        variables: { a: after ?? null },
      }),
    );
  }
  await sampled("REST events list, middle, one project (group_id)", () =>
    post("/reg/api2/events/", {
      action: "list",
      group_id: GROUP_ID,
      doc: { after: encodeFeedCursor(Math.floor(N / 2)), limit: 100 },
    }),
  );

  // The seed stamps updated_at up to 30 days after applying (applications over 180 days): a week
  // back selects a few percent.
  const since = wire(new Date(now.getTime() - 7 * DAY_MS));
  const list = (doc: Record<string, unknown>) =>
    post("/reg/api2/users/", { action: "get_user_list", group_id: GROUP_ID, doc: { with_excluded: true, ...doc } });
  console.log(`\nget_user_list modified_since ${since} (with_excluded)`);
  await sampled("first page (counts the changed records)", () => {
    benchApp.forgetWalkPositions();
    return list({ modified_since: since });
  });
  benchApp.forgetWalkPositions();
  const walkTimes: number[] = [];
  const walkStatements: number[] = [];
  let position: number | null = 0;
  let seen = 0;
  let total = 0;
  const walkStarted = performance.now();
  while (position !== null) {
    const result = await list({ modified_since: since, starting_position: position });
    walkTimes.push(result.elapsed);
    walkStatements.push(result.statements);
    total = Number(result.body.total_users);
    seen += (result.body.users as unknown[]).length + (result.body.children as unknown[]).length;
    position = result.body.next_starting_position as number | null;
  }
  const walkMs = performance.now() - walkStarted;
  const around = (index: number) => p50(walkTimes.slice(Math.max(0, index - 5), index + 5));
  console.log(
    `  walk: ${walkTimes.length} pages, ${seen} of ${total} changed records, total ${(walkMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `  walk pages: p50 of the first 10 ${ms(around(5))}, around the middle ${ms(around(Math.floor(walkTimes.length / 2)))}, last 10 ${ms(around(walkTimes.length - 5))}; SQL per page: first ${walkStatements[0]}, then ${walkStatements[1] ?? "-"}`,
  );
  await sampled("GraphQL users(filter: {updatedSince}) first page of 50, with totalCount", () =>
    post("/graphql", {
      query:
        "query($g: Int!, $s: DateTime) { users(groupId: $g, first: 50, filter: { updatedSince: $s }) { totalCount edges { node { uid metaInfo { updatedAt } } } } }",
      variables: { g: GROUP_ID, s: `${since.replace(" ", "T")}Z` },
    }),
  );
  console.log("\nwithout modified_since (the catch-up before it): plain get_user_list pages");
  await sampled("plain first page", () => {
    benchApp.forgetWalkPositions();
    return list({});
  });
  const plain = await list({});
  console.log(`  a full walk is ${Math.ceil(Number(plain.body.total_users) / 50)} pages of 50`);

  await benchApp.stop();
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
