import "reflect-metadata";
import { loadavg } from "node:os";
import { DataSource } from "typeorm";
import { startBenchApp } from "./bench-app";
import { parseDatabaseUrl } from "../src/config/config";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { DEMO_CREDENTIALS } from "../src/fixtures/demo";

// Users pages at size (issue 35 item 5): the search for a common and a rare term, and pages in
// each order against the uid-ordered page, on a database `regapi seed` filled (BENCH_DATABASE_URL,
// the demo project). Each round sends every scenario in turn (side by side), sequentially, one
// request at a time: `BENCH_SAMPLES` measured after `BENCH_WARMUP` unmeasured, `BENCH_ROUNDS`
// rounds. Prints p50/p99 per scenario and round, in ms, from the client's side (HTTP on loopback),
// then each scenario's range over the rounds; a totalCount marked ~ is an estimate
// (totalCountEstimated).
//
//   npm run build && NODE_ENV=production node --heap-growing-percent=100 --max-semi-space-size=8 \
//     dist/bench/users-search.js   (BENCH_DATABASE_URL=mariadb://root@127.0.0.1:3306/regapi_1m)

const GROUP = 100909072;
const PAGE =
  "totalCount totalCountEstimated edges { cursor node { cloginId name metaInfo { totalForms } } } pageInfo { hasNextPage endCursor }";

interface Scenario {
  name: string;
  query: string;
}

const users = (args: string) => `{ users(groupId: ${GROUP}, first: 20${args}) { ${PAGE} } }`;

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL ?? "mariadb://root@127.0.0.1:3306/regapi_1m";
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const samples = Number(process.env.BENCH_SAMPLES ?? 40);
  // Only the scenarios whose name contains one of these (comma-separated); all by default.
  const only = (process.env.BENCH_ONLY ?? "").split(",").filter((part) => part !== "");
  const warmup = Number(process.env.BENCH_WARMUP ?? 5);
  const dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(url)));
  await dataSource.initialize();
  // The rare term: one seeded username's number (each is its own word).
  const [{ username, registrations }] = await dataSource.query(
    `SELECT (SELECT p.username FROM registration r JOIN person p ON p.id = r.person_id
              WHERE r.project_id = ? ORDER BY r.uid DESC LIMIT 1 OFFSET 1000) AS username,
            (SELECT COUNT(*) FROM registration WHERE project_id = ?) AS registrations`,
    [GROUP, GROUP],
  );
  const rareWord = String(username).split(/[^A-Za-z0-9_]+/)[2] ?? String(username);
  // The project's most used status and tag, for a search beside another filter.
  const [{ statusId, tagId }] = await dataSource.query(
    `SELECT (SELECT status_id FROM registration WHERE project_id = ? AND status_id IS NOT NULL
              GROUP BY status_id ORDER BY COUNT(*) DESC LIMIT 1) AS statusId,
            (SELECT t.id FROM tag t WHERE t.project_id = ? ORDER BY t.id LIMIT 1) AS tagId`,
    [GROUP, GROUP],
  );
  const scenarios: Scenario[] = [
    { name: "uid page (no orderBy)", query: users("") },
    { name: "APPLICATION_DATE ASC page", query: users(", orderBy: { field: APPLICATION_DATE }") },
    { name: "APPLICATION_DATE DESC page", query: users(", orderBy: { field: APPLICATION_DATE, direction: DESC }") },
    { name: "UPDATED_AT DESC page", query: users(", orderBy: { field: UPDATED_AT, direction: DESC }") },
    { name: "UID DESC page", query: users(", orderBy: { field: UID, direction: DESC }") },
    { name: "NAME ASC page", query: users(", orderBy: { field: NAME }") },
    { name: "NAME DESC page", query: users(", orderBy: { field: NAME, direction: DESC }") },
    { name: "NAME ASC page after 1,000 (cursor)", query: "" },
    { name: 'search common "jones"', query: users(', filter: { search: "jones" }') },
    { name: 'search common, two words "ada jones"', query: users(', filter: { search: "ada jones" }') },
    { name: `search rare "${rareWord}" (one user)`, query: users(`, filter: { search: "${rareWord}" }`) },
    { name: 'search absent "zyxwv"', query: users(', filter: { search: "zyxwv" }') },
    { name: 'search common "jones", next page (cursor)', query: "" },
    {
      name: 'search common "jones", NAME ASC',
      query: users(', filter: { search: "jones" }, orderBy: { field: NAME }'),
    },
    {
      name: 'search common "jones", NAME DESC',
      query: users(', filter: { search: "jones" }, orderBy: { field: NAME, direction: DESC }'),
    },
    {
      name: 'search two words "ada jones", NAME ASC',
      query: users(', filter: { search: "ada jones" }, orderBy: { field: NAME }'),
    },
    {
      name: 'search prefix "jon" (jon, jones), NAME ASC',
      query: users(', filter: { search: "jon" }, orderBy: { field: NAME }'),
    },
    {
      name: 'search common "jones", APPLICATION_DATE DESC',
      query: users(', filter: { search: "jones" }, orderBy: { field: APPLICATION_DATE, direction: DESC }'),
    },
    {
      name: 'search common "jones", UPDATED_AT DESC',
      query: users(', filter: { search: "jones" }, orderBy: { field: UPDATED_AT, direction: DESC }'),
    },
    {
      name: 'search common "jones", UID DESC',
      query: users(', filter: { search: "jones" }, orderBy: { field: UID, direction: DESC }'),
    },
    { name: `status ${statusId} page (no search)`, query: users(`, filter: { statusId: ${statusId} }`) },
    {
      name: `search common "jones", status ${statusId}`,
      query: users(`, filter: { search: "jones", statusId: ${statusId} }`),
    },
    { name: `tag ${tagId} page (no search)`, query: users(`, filter: { tagId: ${tagId} }`) },
    { name: `search common "jones", tag ${tagId}`, query: users(`, filter: { search: "jones", tagId: ${tagId} }`) },
    {
      name: `search rare "${rareWord}", NAME ASC`,
      query: users(`, filter: { search: "${rareWord}" }, orderBy: { field: NAME }`),
    },
  ];

  const benchApp = await startBenchApp(dataSource);
  const endpoint = `${benchApp.origin}/graphql`;
  const headers = {
    "Content-Type": "application/json",
    "Api-Id": DEMO_CREDENTIALS.apiId,
    "Api-User": DEMO_CREDENTIALS.apiUser,
    "Api-Token": DEMO_CREDENTIALS.apiToken,
  };
  const send = async (query: string) => {
    const started = process.hrtime.bigint();
    const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify({ query }) });
    const body = (await response.json()) as {
      errors?: unknown;
      data?: { users?: { totalCount: number; totalCountEstimated: boolean } };
    };
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.status !== 200 || body.errors) throw new Error(`${response.status} ${JSON.stringify(body.errors)}`);
    const users = body.data?.users;
    return { ms, total: `${users?.totalCountEstimated ? "~" : ""}${users?.totalCount ?? 0}` };
  };
  // A NAME page deep in the order: the cursor after the first 1,000 names.
  const deep = scenarios.find((scenario) => scenario.name.startsWith("NAME ASC page after"))!;
  let after: string | null = null;
  for (let i = 0; i < 10; i++) {
    const q = `{ users(groupId: ${GROUP}, first: 100, orderBy: { field: NAME }${after ? `, after: "${after}"` : ""}) { pageInfo { endCursor } } }`;
    const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify({ query: q }) });
    after = ((await response.json()) as { data: { users: { pageInfo: { endCursor: string } } } }).data.users.pageInfo
      .endCursor;
  }
  deep.query = users(`, orderBy: { field: NAME }, after: "${after}"`);
  // The second page of the common word's search.
  const next = scenarios.find((scenario) => scenario.name.includes("next page"))!;
  const firstJones = `{ users(groupId: ${GROUP}, first: 20, filter: { search: "jones" }) { pageInfo { endCursor } } }`;
  const jonesPage = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify({ query: firstJones }) });
  const jonesAfter = ((await jonesPage.json()) as { data: { users: { pageInfo: { endCursor: string } } } }).data.users
    .pageInfo.endCursor;
  next.query = users(`, filter: { search: "jones" }, after: "${jonesAfter}"`);
  const quantile = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

  console.log(
    `${registrations} registrations in project ${GROUP}; ${samples} samples after ${warmup} warm-up, ${rounds} rounds`,
  );
  const results = new Map<string, { total: string; p50: number[]; p99: number[] }>();
  for (let round = 1; round <= rounds; round++) {
    console.log(
      `round ${round}: load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(" ")}`,
    );
    for (const scenario of scenarios) {
      if (only.length > 0 && !only.some((part) => scenario.name.includes(part))) continue;
      let total = "";
      for (let i = 0; i < warmup; i++) total = (await send(scenario.query)).total;
      const times: number[] = [];
      for (let i = 0; i < samples; i++) times.push((await send(scenario.query)).ms);
      times.sort((a, b) => a - b);
      const result = results.get(scenario.name) ?? { total, p50: [], p99: [] };
      result.p50.push(quantile(times, 0.5));
      result.p99.push(quantile(times, 0.99));
      results.set(scenario.name, result);
      console.log(
        `round ${round}  ${scenario.name.padEnd(44)} totalCount ${String(total).padStart(8)}  p50 ${quantile(times, 0.5).toFixed(1).padStart(7)} ms  p99 ${quantile(times, 0.99).toFixed(1).padStart(7)} ms`,
      );
    }
  }
  console.log(
    `after the rounds: load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(" ")}`,
  );
  const range = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
  console.log("| scenario | totalCount | p50 | p99 |\n|---|---|---|---|");
  for (const [name, result] of results)
    console.log(`| ${name} | ${result.total} | ${range(result.p50)} | ${range(result.p99)} |`);
  await benchApp.stop();
  await dataSource.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
