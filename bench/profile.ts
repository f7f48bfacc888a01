import "reflect-metadata";
import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { SERVER_NODE_FLAGS } from "../src/common/heap-growth";
import { prepareBenchDatabase } from "./bench-database";
import { BENCH_SCENARIOS } from "./scenarios";
import type { Side, SideMessage, SideRequest } from "./side-server";

// A CPU profile of regapi under the side-by-side bench's load, one scenario at a time: the server
// (bench/side-server.ts, as compare.ts starts it, with the node flags of `npm start`) is warmed up,
// then profiled (the inspector's sampling profiler, 1 ms) while autocannon sends the scenario's
// request, and the profile is summarized by where the time went (self time by package and by
// function, in percent of the busy time and in µs per answered request).
//   npm run bench:profile -- "get_project_list"        # scenarios whose name contains it
// Environment: BENCH_DATABASE_URL, BENCH_REUSE=1 (as compare.ts), BENCH_SECONDS (10),
// BENCH_PROFILE_SIDE (regapi, or baseline: the hand-written server under its own request, so
// the two profiles can be set side by side),
// BENCH_CONNECTIONS (10), BENCH_PROFILE_DIR (where the .cpuprofile files go; default
// test-results/profiles), BENCH_PROFILE_TOP (functions listed, 25).

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const REUSE = process.env.BENCH_REUSE === "1";
const URL = process.env.BENCH_DATABASE_URL ?? "mariadb://root@127.0.0.1:3306/regapi_bench_baseline";
const DIR = resolve(process.env.BENCH_PROFILE_DIR ?? "test-results/profiles");
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 25);
const SIDE: Side = process.env.BENCH_PROFILE_SIDE === "baseline" ? "baseline" : "regapi";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package of node_modules, regapi's own file, node's internals, or V8. */
function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith("node:")) return "node:internal";
  const dist = url.indexOf("/dist/");
  return dist >= 0 ? url.slice(dist + "/dist/".length).replace(/\.js$/, "") : url;
}

/** Self time by place and by function, in percent of the samples. */
export function summarizeProfile(profile: CpuProfile, requests: number, top = TOP): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfMicros.values()].reduce((sum, micros) => sum + micros, 0) || 1;
  const idle = [...selfMicros].filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)");
  const idleMicros = idle.reduce((sum, [, micros]) => sum + micros, 0);
  const busy = total - idleMicros || 1;
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + micros);
    const name = `${functionName || "(anonymous)"} ${place}${url ? `:${lineNumber + 1}` : ""}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const percent = (micros: number) =>
    `${((100 * micros) / busy).toFixed(1)} % ${(micros / (requests || 1)).toFixed(0).padStart(5)} µs/req`;
  const ranked = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s profiled, ${(busy / (requests || 1)).toFixed(0)} µs of CPU per answered request`,
    "self time by place:",
    ...ranked(places).map(([place, micros]) => `  ${percent(micros).padStart(20)}  ${place}`),
    "self time by function:",
    ...ranked(functions).map(([name, micros]) => `  ${percent(micros).padStart(20)}  ${name}`),
  ].join("\n");
}

async function profileScenario(name: string): Promise<void> {
  const scenario = BENCH_SCENARIOS.find((candidate) => candidate.name === name)!;
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, `${SIDE}-${name.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase()}.cpuprofile`);
  const child = fork(join(__dirname, "side-server.js"), [SIDE, URL], { execArgv: [...SERVER_NODE_FLAGS] });
  const next = async () => (await once(child, "message"))[0] as SideMessage;
  const first = await next();
  if (first.type !== "listening") throw new Error(`the ${SIDE} server did not start`);
  const ask = async (request: SideRequest) => {
    const answer = next();
    child.send(request);
    return answer;
  };
  const target = scenario[SIDE];
  const run = (seconds: number) =>
    autocannon({
      url: `http://127.0.0.1:${first.port}${target.path}`,
      method: "POST",
      headers: { ...scenario.headers, "content-type": "application/json" },
      body: JSON.stringify(target.body),
      connections: CONNECTIONS,
      duration: seconds,
    });
  // Warmed up before the profile starts: module loading, schema building and first compilations
  // are not what a request costs.
  await run(3);
  await ask({ type: "profile-start" });
  const result = await run(SECONDS);
  await ask({ type: "profile-stop", file });
  const exited = once(child, "exit");
  child.disconnect();
  await exited;
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const requests = result.requests.total;
  console.log(
    `\n## ${name} (${SIDE}): ${(requests / result.duration).toFixed(0)} req/s under the profiler (${result.non2xx + result.errors} non-2xx/errors), ${file}`,
  );
  console.log(summarizeProfile(profile, requests));
}

async function main(): Promise<void> {
  const only = process.argv.slice(2).join(" ");
  await prepareBenchDatabase(URL, USERS, REUSE);
  for (const scenario of BENCH_SCENARIOS.filter((candidate) => candidate.name.includes(only)))
    await profileScenario(scenario.name);
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
