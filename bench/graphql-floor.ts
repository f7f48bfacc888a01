import "reflect-metadata";
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { SERVER_NODE_FLAGS } from "../src/common/heap-growth";
import { prepareBenchDatabase } from "./bench-database";
import {
  BENCH_GROUP_ID,
  BENCH_HEADERS,
  BENCH_USER,
  NESTED_USER_QUERY,
  USERS_PAGE_NO_COUNT_QUERY,
  USERS_PAGE_QUERY,
} from "./scenarios";
import type { SideMessage } from "./side-server";

// The floor of a GraphQL read (issue 23: the nested user; issue 34: the users pages): what the
// stack regapi must use costs for this exact query and answer, beside regapi and the hand-written baseline. Each server runs in its own
// process, as in bench/compare.ts; each is driven in turn by autocannon (10 connections) with a
// fixed number of requests, and its CPU per request is read from /proc/<pid>/stat (user + system,
// all threads), and the local MariaDB server's CPU over the same run from its pid file. The floor servers (bench/floor-server.ts) hold regapi's answer in memory:
//   baseline  Express + mysql2, the hand-written reads (bench/baseline/server.ts)
//   regapi    the application
//   apollo    Express + Apollo Server 5 + regapi's type-graphql schema, no database
//   jit       Express + a graphql-jit compiled query on a plain graphql-js schema, no database
//   express   Express sending the answer: HTTP, body parsing and JSON alone
//   npm run bench:graphql-floor                      # 10k seeded registrants, the nested user read
//   FLOOR_QUERY=page npm run bench:graphql-floor     # users(first: 50) metaInfo (page-no-count: without totalCount)
//   BENCH_REUSE=1 npm run bench:graphql-floor        # the database an earlier run seeded
// Environment: BENCH_DATABASE_URL (default mariadb://root@127.0.0.1:3306/regapi_bench_floor; dropped
// and re-created unless BENCH_REUSE=1), BENCH_USERS (10000), FLOOR_QUERY (nested, page or
// page-no-count: the read of bench/scenarios.ts measured), FLOOR_ROUNDS (7), FLOOR_REQUESTS (1500
// per side per round), FLOOR_CONNECTIONS (10), FLOOR_SIDES (all five, comma-separated; "compared"
// adds regapi as another build runs it), FLOOR_COMPARE (that build's output directory, e.g. a copy
// of dist/ from another commit kept inside this checkout so that it finds node_modules): to measure
// a change A/B, `FLOOR_SIDES=regapi,compared FLOOR_COMPARE=.ab/before`; FLOOR_COMPARE_FLAGS (node
// flags of the compared side only, e.g. "--max-semi-space-size=32"; without FLOOR_COMPARE it runs
// this build); FLOOR_TOGETHER=1 drives the sides at the same time instead of in turn.

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const REUSE = process.env.BENCH_REUSE === "1";
const URL = process.env.BENCH_DATABASE_URL ?? "mariadb://root@127.0.0.1:3306/regapi_bench_floor";
const ROUNDS = Number(process.env.FLOOR_ROUNDS ?? 7);
const REQUESTS = Number(process.env.FLOOR_REQUESTS ?? 1500);
const CONNECTIONS = Number(process.env.FLOOR_CONNECTIONS ?? 10);
const ALL_SIDES = ["baseline", "regapi", "apollo", "jit", "express"] as const;
type SideName = (typeof ALL_SIDES)[number] | "compared";
const SIDES = (process.env.FLOOR_SIDES?.split(",") ?? ALL_SIDES) as SideName[];
// Every side driven at the same time in each round: on a shared machine whose load changes from
// second to second, two builds compared this way meet the same load (req/s then mean nothing).
const TOGETHER = process.env.FLOOR_TOGETHER === "1";
const COMPARE = process.env.FLOOR_COMPARE ? resolve(process.env.FLOOR_COMPARE) : undefined;
const COMPARE_FLAGS = process.env.FLOOR_COMPARE_FLAGS?.split(" ").filter(Boolean) ?? [];

/** The read measured: regapi's request, and the baseline's endpoint and request for the same answer. */
const READS = {
  nested: {
    graphql: { query: NESTED_USER_QUERY, variables: { g: BENCH_GROUP_ID, c: BENCH_USER } },
    baseline: { path: "/baseline/nested-user", body: { groupId: BENCH_GROUP_ID, cloginId: BENCH_USER }, statements: 5 },
  },
  page: {
    graphql: { query: USERS_PAGE_QUERY, variables: { g: BENCH_GROUP_ID, n: 50 } },
    baseline: { path: "/baseline/users-page", body: { groupId: BENCH_GROUP_ID, first: 50 }, statements: 3 },
  },
  "page-no-count": {
    graphql: { query: USERS_PAGE_NO_COUNT_QUERY, variables: { g: BENCH_GROUP_ID, n: 50 } },
    baseline: {
      path: "/baseline/users-page",
      body: { groupId: BENCH_GROUP_ID, first: 50, withCount: false },
      statements: 2,
    },
  },
} as const;
const READ_NAME = (process.env.FLOOR_QUERY ?? "nested") as keyof typeof READS;
if (!Object.hasOwn(READS, READ_NAME)) throw new Error(`FLOOR_QUERY: one of ${Object.keys(READS).join(", ")}`);
const READ = READS[READ_NAME];

const DESCRIPTION: Record<SideName, string> = {
  baseline: `baseline: Express + mysql2, ${READ.baseline.statements} statements`,
  regapi: "regapi",
  apollo: "Express + Apollo Server 5 + type-graphql schema, answer in memory",
  jit: "Express + graphql-jit, plain schema, answer in memory",
  express: "Express sending the answer",
  compared: `regapi as built in ${COMPARE ?? "dist"}${COMPARE_FLAGS.length ? ` with ${COMPARE_FLAGS.join(" ")}` : ""}`,
};

const TICK_MS = 1000 / 100; // CLK_TCK is 100 on Linux

interface Running {
  name: SideName;
  child: ChildProcess;
  url: string;
  body: string;
}

/** User + system CPU of a process and all its threads, in ms. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function start(name: SideName, answer: string): Promise<Running> {
  const database = name === "regapi" || name === "baseline" || name === "compared";
  const directory = name === "compared" && COMPARE ? join(COMPARE, "bench") : __dirname;
  const side = name === "compared" ? "regapi" : name;
  const child = fork(
    join(directory, database ? "side-server.js" : "floor-server.js"),
    [side, database ? URL : answer],
    {
      execArgv: [...SERVER_NODE_FLAGS, ...(name === "compared" ? COMPARE_FLAGS : [])],
    },
  );
  const first = (await once(child, "message"))[0] as SideMessage;
  if (first.type !== "listening") throw new Error(`${name} did not start`);
  const base = `http://127.0.0.1:${first.port}`;
  return name === "baseline"
    ? { name, child, url: `${base}${READ.baseline.path}`, body: JSON.stringify(READ.baseline.body) }
    : { name, child, url: `${base}/graphql`, body: JSON.stringify(READ.graphql) };
}

async function answerOf(side: Running): Promise<string> {
  const response = await fetch(side.url, {
    method: "POST",
    headers: { ...BENCH_HEADERS, "content-type": "application/json" },
    body: side.body,
  });
  return response.text();
}

interface Run {
  rps: number;
  cpuMs: number;
  /** The database server's CPU per request over the same run: meaningful only with the sides in turn. */
  databaseCpuMs: number;
}

/** The MariaDB server behind BENCH_DATABASE_URL, when it runs on this machine (its pid file). */
function databasePid(): number | undefined {
  for (const file of ["/run/mysqld/mysqld.pid", "/var/run/mysqld/mysqld.pid"]) {
    try {
      return Number(readFileSync(file, "utf8").trim());
    } catch {
      // not this one
    }
  }
  return undefined;
}
const DATABASE_PID = databasePid();

async function drive(side: Running, amount: number): Promise<Run> {
  const pid = side.child.pid!;
  const before = cpuMsOf(pid);
  const databaseBefore = DATABASE_PID ? cpuMsOf(DATABASE_PID) : 0;
  const result = await autocannon({
    url: side.url,
    method: "POST",
    headers: { ...BENCH_HEADERS, "content-type": "application/json" },
    body: side.body,
    connections: CONNECTIONS,
    amount,
    // The run ends on the first sample after the last answer: by default a whole second later.
    sampleInt: 20,
  });
  const cpu = cpuMsOf(pid) - before;
  const databaseCpu = DATABASE_PID ? cpuMsOf(DATABASE_PID) - databaseBefore : 0;
  if (result.non2xx + result.errors > 0) throw new Error(`${side.name}: ${result.non2xx + result.errors} failures`);
  return {
    rps: result.requests.total / result.duration,
    cpuMs: cpu / result.requests.total,
    databaseCpuMs: databaseCpu / result.requests.total,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

/** Per round, regapi's CPU per request over the compared build's: the sides ran next to each other. */
function pairedRatios(ours: Run[], theirs: Run[]): number[] {
  return ours.map((run, round) => run.cpuMs / theirs[round].cpuMs);
}

async function main(): Promise<void> {
  await prepareBenchDatabase(URL, USERS, REUSE);
  const regapi = await start("regapi", "");
  const answer = await answerOf(regapi);
  if (!answer.startsWith('{"data":{"user') || answer.includes('"errors"'))
    throw new Error(`regapi answered ${answer.slice(0, 200)}`);
  const sides = [regapi];
  for (const name of SIDES) if (name !== "regapi") sides.push(await start(name, answer));
  const measured = sides.filter((side) => SIDES.includes(side.name));
  for (const side of measured) {
    // The floors hand out regapi's answer, so every GraphQL side should send its bytes.
    const same = (await answerOf(side)) === answer;
    console.log(`${side.name}: ${same ? "the same bytes as regapi" : "NOT the same bytes as regapi"}`);
  }
  for (const side of measured) await drive(side, Math.max(300, REQUESTS / 3));

  const runs = new Map<SideName, Run[]>(measured.map((side) => [side.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    // The order turns every round, so a load that drifts through the run weighs on all alike.
    const order = measured.map((_, i) => measured[(i + round) % measured.length]);
    if (TOGETHER) {
      const together = await Promise.all(order.map((side) => drive(side, REQUESTS)));
      order.forEach((side, i) => runs.get(side.name)!.push(together[i]));
    } else for (const side of order) runs.get(side.name)!.push(await drive(side, REQUESTS));
  }

  console.log(
    `\n${READ_NAME} read: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}); ${ROUNDS} rounds of ${REQUESTS} requests per side, ` +
      `${CONNECTIONS} connections, ${TOGETHER ? "sides at the same time" : "sides in turn"}; CPU from /proc/<pid>/stat (10 ms ticks); medians, min–max over the rounds\n`,
  );
  console.log(
    "| server | req/s | CPU ms/request | min–max | req/s vs baseline | CPU vs baseline | database CPU ms/request |",
  );
  console.log("|---|---|---|---|---|---|---|");
  const cpu = (name: SideName) => median(runs.get(name)?.map((run) => run.cpuMs) ?? []);
  const rps = (name: SideName) => median(runs.get(name)?.map((run) => run.rps) ?? []);
  for (const side of measured) {
    const own = runs.get(side.name)!;
    console.log(
      `| ${DESCRIPTION[side.name]} | ${rps(side.name).toFixed(0)} | ${cpu(side.name).toFixed(2)} | ${spread(own.map((run) => run.cpuMs))} | ` +
        `${runs.has("baseline") ? `${(rps(side.name) / rps("baseline")).toFixed(2)}×` : "—"} | ` +
        `${runs.has("baseline") ? `${(cpu(side.name) / cpu("baseline")).toFixed(2)}×` : "—"} | ` +
        `${DATABASE_PID && !TOGETHER ? median(own.map((run) => run.databaseCpuMs)).toFixed(2) : "—"} |`,
    );
  }
  if (runs.has("baseline") && runs.has("apollo") && runs.has("express")) {
    // The data work cannot cost regapi less than it costs the baseline beyond Express: at best
    // regapi pays the stack's floor plus that.
    const data = cpu("baseline") - cpu("express");
    const best = cpu("baseline") / (cpu("apollo") + data);
    console.log(
      `\nceiling (CPU-bound): the baseline's ${cpu("baseline").toFixed(2)} ms / (the Apollo + type-graphql floor ${cpu("apollo").toFixed(2)} ms` +
        ` + the baseline's own data work ${data.toFixed(2)} ms) = ${best.toFixed(2)}× of the baseline at best`,
    );
  }
  if (runs.has("regapi") && runs.has("compared")) {
    const ratios = pairedRatios(runs.get("regapi")!, runs.get("compared")!);
    console.log(
      `\nregapi / compared build, CPU per request, round by round: median ${median(ratios).toFixed(3)} (${spread(ratios)}; ` +
        `${ratios.map((ratio) => ratio.toFixed(2)).join(" ")})`,
    );
  }
  for (const side of sides) side.child.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
