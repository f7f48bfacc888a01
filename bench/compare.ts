import "reflect-metadata";
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { SERVER_NODE_FLAGS } from "../src/common/heap-growth";
import { prepareBenchDatabase } from "./bench-database";
import { BENCH_SCENARIOS, type BenchScenario } from "./scenarios";
import type { Side, SideMessage } from "./side-server";

// regapi against the hand-written baseline (bench/baseline/server.ts), side by side on MariaDB:
// the same requests, the same database, the same concurrency. The two sides take turns in short
// slices (regapi, baseline, baseline, regapi, …), so a machine whose load drifts during the run
// (other jobs on a shared box) weighs on both alike: the ratio holds where absolute figures do not.
//   npm run bench                                   # 10k seeded registrants, 10 connections, 10 s each
//   npm run bench -- --users 1000000                # 1M (seeding takes long: keep it with BENCH_REUSE=1)
//   BENCH_REUSE=1 npm run bench -- --users 1000000  # measure the database an earlier run seeded
// Environment: BENCH_DATABASE_URL (default mariadb://root@127.0.0.1:3306/regapi_bench_baseline; it
// is dropped and re-created unless BENCH_REUSE=1), BENCH_SECONDS (10 per side), BENCH_SLICE_SECONDS
// (1), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (10), BENCH_ONLY (a substring of scenario names),
// BENCH_NODE_FLAGS (node flags both servers get after their own), BENCH_RUNS (3: the whole table
// is measured that many times, then the median ratio of each row is printed with its range),
// BENCH_AGAINST (the dist/ folder of another regapi build, e.g. a worktree of the commit before a
// change: that build's regapi takes the baseline's place, so the ratio is after ÷ before, measured
// in one run).

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

const USERS = Number(flag("users") ?? process.env.BENCH_USERS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY ?? "";
// Node flags after the server's own (both sides), e.g. "--max-semi-space-size=16" to measure one.
const EXTRA_NODE_FLAGS = process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
const REUSE = process.env.BENCH_REUSE === "1";
const URL = process.env.BENCH_DATABASE_URL ?? "mariadb://root@127.0.0.1:3306/regapi_bench_baseline";
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const AGAINST = process.env.BENCH_AGAINST;
const OTHER = AGAINST ? "before" : "baseline";

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  sqlPerRequest: number;
  rssMiB: number;
  /** The server process's CPU (user + system) per answered request, µs. */
  cpuMicrosPerRequest: number;
  /** Units of work rerun after a conflict, per 1,000 answered requests. */
  rerunsPerThousand: number;
}

interface SideProcess {
  child: ChildProcess;
  base: string;
  /** Statements the side issued so far and its peak resident set since the last ask. */
  stats(): Promise<Extract<SideMessage, { type: "stats" }>>;
}

const nextMessage = async (child: ChildProcess) => (await once(child, "message"))[0] as SideMessage;

/**
 * Each side runs in its own process (bench/side-server.ts), both started alike: the node flag
 * src/main.ts sets for regapi (src/common/heap-growth.ts) is given to both, so the resident sets
 * compare servers, not heap settings.
 */
async function startSide(side: Side, benchDir = __dirname): Promise<SideProcess> {
  const child = fork(join(benchDir, "side-server.js"), [side, URL], {
    execArgv: [...SERVER_NODE_FLAGS, ...EXTRA_NODE_FLAGS],
  });
  const first = await nextMessage(child);
  if (first.type !== "listening") throw new Error(`the ${side} server did not start`);
  return {
    child,
    base: `http://127.0.0.1:${first.port}`,
    async stats() {
      const answer = nextMessage(child);
      child.send("stats");
      const message = await answer;
      if (message.type !== "stats") throw new Error(`the ${side} server answered ${message.type}`);
      return message;
    },
  };
}

interface Slice {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  failures: number;
  statements: number;
  peakRssMiB: number;
  cpuMicros: number;
  reruns: number;
}

async function slice(
  side: SideProcess,
  target: BenchScenario["regapi"],
  headers: Record<string, string>,
  seconds: number,
): Promise<Slice> {
  const before = await side.stats();
  const result = await autocannon({
    url: side.base + target.path,
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(target.body),
    connections: CONNECTIONS,
    duration: seconds,
  });
  const after = await side.stats();
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
    statements: after.statements - before.statements,
    peakRssMiB: after.peakRssMiB,
    // A build from before these members (BENCH_AGAINST) reports neither: NaN, printed as such.
    cpuMicros: after.cpuMicros - before.cpuMicros,
    reruns: after.reruns - before.reruns,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Slices of one side summed: req/s over all, statements per request, median p50 and p99 of the slices. */
function combined(slices: Slice[]): Measured {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  return {
    rps: requests / (seconds || 1),
    p50: median(slices.map((s) => s.p50)),
    p99: median(slices.map((s) => s.p99)),
    failures: slices.reduce((sum, s) => sum + s.failures, 0),
    sqlPerRequest: slices.reduce((sum, s) => sum + s.statements, 0) / (requests || 1),
    rssMiB: Math.max(...slices.map((s) => s.peakRssMiB)),
    cpuMicrosPerRequest: slices.reduce((sum, s) => sum + s.cpuMicros, 0) / (requests || 1),
    rerunsPerThousand: (1000 * slices.reduce((sum, s) => sum + s.reruns, 0)) / (requests || 1),
  };
}

interface Row {
  scenario: BenchScenario;
  ours: Measured;
  theirs: Measured;
  ratio: number;
}

async function measureScenario(ours: SideProcess, theirs: SideProcess, scenario: BenchScenario): Promise<Row> {
  const regapiSlice = (seconds: number) => slice(ours, scenario.regapi, scenario.headers, seconds);
  const otherTarget = AGAINST ? scenario.regapi : scenario.baseline;
  const otherSlice = (seconds: number) => slice(theirs, otherTarget, scenario.headers, seconds);
  await regapiSlice(WARMUP_SECONDS);
  await otherSlice(WARMUP_SECONDS);
  const regapiSlices: Slice[] = [];
  const otherSlices: Slice[] = [];
  for (let round = 0; round < Math.max(1, Math.round(SECONDS / SLICE_SECONDS)); round += 1) {
    // ABBA order: a load that rises or falls through the run weighs on both sides alike.
    if (round % 2 === 0) {
      regapiSlices.push(await regapiSlice(SLICE_SECONDS));
      otherSlices.push(await otherSlice(SLICE_SECONDS));
    } else {
      otherSlices.push(await otherSlice(SLICE_SECONDS));
      regapiSlices.push(await regapiSlice(SLICE_SECONDS));
    }
  }
  const a = combined(regapiSlices);
  const b = combined(otherSlices);
  return { scenario, ours: a, theirs: b, ratio: a.rps / (b.rps || 1) };
}

const HEADER = [
  "request",
  "regapi req/s",
  `${OTHER} req/s`,
  "ratio",
  "goal",
  "SQL/req regapi",
  `SQL/req ${OTHER}`,
  "p50/p99 ms regapi",
  `p50/p99 ms ${OTHER}`,
  "RSS MiB regapi",
  `RSS MiB ${OTHER}`,
  "CPU µs/req regapi",
  `CPU µs/req ${OTHER}`,
  "reruns/1000 regapi",
];

const tableHead = (header: string[]) => `| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`;

function rowLine({ scenario, ours: a, theirs: b, ratio }: Row): string {
  const failures = a.failures + b.failures > 0 ? ` (non-2xx/errors: ${a.failures} vs ${b.failures})` : "";
  return `| ${[
    scenario.name + failures,
    a.rps.toFixed(0),
    b.rps.toFixed(0),
    `${ratio.toFixed(2)}×`,
    AGAINST ? "—" : `≥ ${scenario.goal}×${ratio < scenario.goal ? " MISSED" : ""}`,
    a.sqlPerRequest.toFixed(1),
    b.sqlPerRequest.toFixed(1),
    `${a.p50.toFixed(0)}/${a.p99.toFixed(0)}`,
    `${b.p50.toFixed(0)}/${b.p99.toFixed(0)}`,
    a.rssMiB.toFixed(0),
    b.rssMiB.toFixed(0),
    a.cpuMicrosPerRequest.toFixed(0),
    b.cpuMicrosPerRequest.toFixed(0),
    a.rerunsPerThousand.toFixed(1),
  ].join(" | ")} |`;
}

/** One line per scenario over the runs: the median ratio, its range, and the medians and peaks behind it. */
function summaryLine(rows: Row[]): string {
  const { scenario } = rows[0];
  const ratios = rows.map((row) => row.ratio);
  const ratio = median(ratios);
  const low = Math.min(...ratios);
  const high = Math.max(...ratios);
  const met = AGAINST ? "—" : ratio >= scenario.goal ? `≥ ${scenario.goal}× met` : `≥ ${scenario.goal}× MISSED`;
  return `| ${[
    scenario.name,
    `${ratio.toFixed(2)}×`,
    `${low.toFixed(2)}–${high.toFixed(2)}×`,
    met,
    median(rows.map((row) => row.ours.rps)).toFixed(0),
    median(rows.map((row) => row.theirs.rps)).toFixed(0),
    median(rows.map((row) => row.ours.p50)).toFixed(0),
    median(rows.map((row) => row.theirs.p50)).toFixed(0),
    Math.max(...rows.map((row) => row.ours.rssMiB)).toFixed(0),
    Math.max(...rows.map((row) => row.theirs.rssMiB)).toFixed(0),
    median(rows.map((row) => row.ours.sqlPerRequest)).toFixed(1),
    median(rows.map((row) => row.ours.cpuMicrosPerRequest)).toFixed(0),
    median(rows.map((row) => row.theirs.cpuMicrosPerRequest)).toFixed(0),
    rows.reduce((sum, row) => sum + row.ours.failures, 0).toString(),
    median(rows.map((row) => row.ours.rerunsPerThousand)).toFixed(1),
  ].join(" | ")} |`;
}

async function main(): Promise<void> {
  await prepareBenchDatabase(URL, USERS, REUSE);

  const ours = await startSide("regapi");
  const theirs = AGAINST ? await startSide("regapi", join(AGAINST, "bench")) : await startSide("baseline");
  console.log(
    `node ${process.version} (NODE_ENV=${process.env.NODE_ENV ?? "unset"}), ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ` +
      `${USERS} registrants; autocannon ${CONNECTIONS} connections, ${SECONDS} s per side in ${SLICE_SECONDS} s slices taken in turns, after ${WARMUP_SECONDS} s warm-up each; ` +
      `each server in its own process (node ${[...SERVER_NODE_FLAGS, ...EXTRA_NODE_FLAGS].join(" ")}), one measured at a time; p50/p99: median over the slices; RSS: each process's peak while measured; ` +
      `${RUNS} run(s)${AGAINST ? `; the other side is the regapi build in ${AGAINST}` : ""}\n`,
  );
  const scenarios = BENCH_SCENARIOS.filter((s) => s.name.includes(ONLY));
  const byScenario = new Map<BenchScenario, Row[]>(scenarios.map((scenario) => [scenario, []]));
  for (let run = 1; run <= RUNS; run += 1) {
    console.log(`run ${run} of ${RUNS}\n${tableHead(HEADER)}`);
    for (const scenario of scenarios) {
      const row = await measureScenario(ours, theirs, scenario);
      byScenario.get(scenario)!.push(row);
      console.log(rowLine(row));
    }
    console.log("");
  }
  const summaryHeader = [
    "request",
    `median ratio (${RUNS} runs)`,
    "range",
    "goal",
    "regapi req/s",
    `${OTHER} req/s`,
    "p50 ms regapi",
    `p50 ms ${OTHER}`,
    "peak RSS MiB regapi",
    `peak RSS MiB ${OTHER}`,
    "SQL/req regapi",
    "CPU µs/req regapi",
    `CPU µs/req ${OTHER}`,
    "non-2xx regapi (all runs)",
    "reruns/1000 regapi",
  ];
  console.log(`medians of ${RUNS} run(s)\n${tableHead(summaryHeader)}`);
  let missed = 0;
  for (const rows of byScenario.values()) {
    if (median(rows.map((row) => row.ratio)) < rows[0].scenario.goal) missed += 1;
    console.log(summaryLine(rows));
  }
  if (!AGAINST)
    console.log(
      `\n${missed === 0 ? "every median ratio meets its goal" : `${missed} median ratio(s) below the goal`} (issue 34)`,
    );
  ours.child.disconnect();
  theirs.child.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
