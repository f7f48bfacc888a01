import "reflect-metadata";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { DataSource } from "typeorm";
import { startBenchApp } from "./bench-app";
import { parseDatabaseUrl, redactUrl } from "../src/config/config";
import { seedRegistrants } from "../src/cli/seed/seed-registrants";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { CountingSqlLogger } from "../src/db/sql-counter";
import { createRequestContext } from "../src/domain/context";
import { processStateOf } from "../src/domain/process-state";
import { DEMO_CREDENTIALS, DEMO_FIXTURE } from "../src/fixtures/demo";
import { loadFixture } from "../src/fixtures/load-fixture";
import { encodeNodeId } from "../src/graphql/nodes/node-id";

// HTTP benchmark: REST and GraphQL operations against an in-process server on loopback, with
// autocannon as the client. Prints throughput, latency, SQL statements per request and memory.
//   npm run bench:regapi                                 # SQLite temp file, 10k seeded registrants
//   BENCH_DATABASE_URL=mariadb://root@127.0.0.1:3306/regapi_bench BENCH_USERS=100000 npm run bench:regapi
//   BENCH_ONLY=update npm run bench:regapi               # only the scenarios whose name matches
// On MySQL/MariaDB the named database must exist and be empty; it is migrated here.

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SEEDED_USERS = Number(process.env.BENCH_USERS ?? 10_000);
const GROUP_ID = 100909072;
const MILES = 102670540;

const headers = {
  "content-type": "application/json",
  "api-id": DEMO_CREDENTIALS.apiId,
  "api-user": DEMO_CREDENTIALS.apiUser,
  "api-token": DEMO_CREDENTIALS.apiToken,
};

interface Scenario {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** "fresh": a new Idempotency-Key per request (each one runs); "repeated": one key (all but the first replay). */
  idempotencyKey?: "fresh" | "repeated";
}

const UNCHANGED_UPDATE = { action: "update", group_id: GROUP_ID, clogin_id: MILES, doc: { f_301_3: ["M"] } };

const NESTED_USER_SELECTION = `name metaInfo{ totalForms totalOrder totalBalance status{ name } }
  forms{ completed form{ name fields{ identifier label } } } fieldValues{ text choices field{ identifier } } emails{ subject } tags{ name }
  children{ name metaInfo{ totalForms } forms{ completed } }`;
const NESTED_USER_QUERY = `query($g:Int!,$c:Int!){ user(groupId:$g, cloginId:$c){ ${NESTED_USER_SELECTION} } }`;
const NESTED_NODE_QUERY = `query($id:ID!){ node(id:$id){ ... on User { ${NESTED_USER_SELECTION} } } }`;

const SCENARIOS: Scenario[] = [
  { name: "GET /healthz (framework floor)", method: "GET", path: "/healthz" },
  { name: "REST users update (unchanged value)", method: "POST", path: "/reg/api2/users/", body: UNCHANGED_UPDATE },
  {
    name: "REST users update + Idempotency-Key (new key each)",
    method: "POST",
    path: "/reg/api2/users/",
    body: UNCHANGED_UPDATE,
    idempotencyKey: "fresh",
  },
  {
    name: "REST users update + Idempotency-Key (replayed)",
    method: "POST",
    path: "/reg/api2/users/",
    body: UNCHANGED_UPDATE,
    idempotencyKey: "repeated",
  },
  {
    name: "REST users update mark_forms_complete all",
    method: "POST",
    path: "/reg/api2/users/",
    body: { action: "update", group_id: GROUP_ID, clogin_id: MILES, mark_forms_complete: "all" },
  },
  {
    name: "REST projects get_project_list + totals",
    method: "POST",
    path: "/reg/api2/projects/",
    body: { action: "get_project_list", group_id: GROUP_ID, doc: { with_archived: true, with_group_totals: true } },
  },
  {
    name: "GraphQL nested user read",
    method: "POST",
    path: "/graphql",
    body: { query: NESTED_USER_QUERY, variables: { g: GROUP_ID, c: MILES } },
  },
  {
    name: "GraphQL node(id) nested user read",
    method: "POST",
    path: "/graphql",
    body: {
      query: NESTED_NODE_QUERY,
      variables: { id: encodeNodeId("User", { groupId: GROUP_ID, cloginId: MILES }) },
    },
  },
  {
    name: "GraphQL users(first: 50) metaInfo",
    method: "POST",
    path: "/graphql",
    body: {
      query: `{ users(groupId: ${GROUP_ID}, first: 50) { totalCount edges { node { cloginId metaInfo { totalForms totalOrder } } } } }`,
    },
  },
  {
    name: "GraphQL users(last: 50) metaInfo (backward, end of list)",
    method: "POST",
    path: "/graphql",
    body: {
      query: `{ users(groupId: ${GROUP_ID}, last: 50) { totalCount edges { node { cloginId metaInfo { totalForms totalOrder } } } } }`,
    },
  },
];

async function openDatabase(sql: CountingSqlLogger): Promise<{ dataSource: DataSource; label: string }> {
  const url =
    process.env.BENCH_DATABASE_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "regapi-bench-")), "bench.sqlite")}`;
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url), { logger: sql }));
  await dataSource.initialize();
  if (dataSource.options.type !== "better-sqlite3") await dataSource.runMigrations({ transaction: "each" });
  return { dataSource, label: redactUrl(url) };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const sql = new CountingSqlLogger();
  const { dataSource, label } = await openDatabase(sql);
  await loadFixture(createRequestContext(processStateOf(dataSource), "bench"), DEMO_FIXTURE);
  const seedStarted = Date.now();
  await seedRegistrants(processStateOf(dataSource), { groupId: GROUP_ID, users: SEEDED_USERS });
  console.log(
    `database ${label}: demo + ${SEEDED_USERS} seeded registrants in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`,
  );

  const benchApp = await startBenchApp(dataSource);
  const base = `${benchApp.origin}`;
  console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION_S} s per scenario, node ${process.version}\n`);
  console.log(["scenario", "req/s", "p50 ms", "p99 ms", "non-2xx", "SQL/req", "RSS after"].join(" | "));

  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, "i") : null;
  let keys = 0;
  for (const scenario of SCENARIOS.filter((each) => !only || only.test(each.name))) {
    const sqlBefore = sql.total;
    const keyPrefix = `bench-${Date.now()}-`;
    const result = await autocannon({
      url: base + scenario.path,
      method: scenario.method,
      headers: scenario.method === "POST" ? headers : {},
      body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: scenario.idempotencyKey
        ? [
            {
              setupRequest: (request) => ({
                ...request,
                headers: {
                  ...request.headers,
                  "idempotency-key": scenario.idempotencyKey === "fresh" ? `${keyPrefix}${++keys}` : `${keyPrefix}one`,
                },
              }),
            },
          ]
        : undefined,
    });
    const requests = result.requests.total || 1;
    console.log(
      [
        scenario.name,
        result.requests.average.toFixed(0),
        result.latency.p50.toFixed(1),
        result.latency.p99.toFixed(1),
        String(result.non2xx + result.errors),
        ((sql.total - sqlBefore) / requests).toFixed(1),
        mb(process.memoryUsage().rss),
      ].join(" | "),
    );
  }
  await benchApp.stop();
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
