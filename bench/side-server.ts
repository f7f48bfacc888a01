import "reflect-metadata";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Session } from "node:inspector";
import type { AddressInfo } from "node:net";
import { createPool } from "mysql2/promise";
import { DataSource } from "typeorm";
import { createApp } from "../src/app";
import { startRuntime } from "../src/runtime/runtime";
import { configWith, loadConfig, parseDatabaseUrl, RATE_LIMITS_OFF } from "../src/config/config";
import { buildDataSourceOptions } from "../src/db/data-source-options";
import { CountingSqlLogger } from "../src/db/sql-counter";
import { createLogger } from "../src/http/logger";
import { baselineSql, createBaselineApp } from "./baseline/server";

// One side of bench/compare.ts in a process of its own, so that each side's resident set is its
// own (in one process the figure was the sum of regapi, the baseline and autocannon). Both sides
// start the same way (compare.ts forks this file with the same node flags); the parent asks over
// IPC for the statements issued so far and the peak resident set since the last ask.

export type Side = "regapi" | "baseline";

export type SideMessage =
  | { type: "listening"; port: number }
  | {
      type: "stats";
      statements: number;
      peakRssMiB: number;
      peakHeapUsedMiB: number;
      /** The process's CPU time (user + system) since start, in µs: less moved by a busy machine than req/s. */
      cpuMicros: number;
      /** Units of work rerun after a conflict since start (regapi; the baseline reruns nothing). */
      reruns: number;
    }
  | { type: "profiling" }
  | { type: "profiled"; file: string };

/** What the parent sends: "stats", or a CPU profile's start and its stop (written to `file`). */
export type SideRequest = "stats" | { type: "profile-start" } | { type: "profile-stop"; file: string };

/** A CPU profile of this process from now until the returned stop, which writes it to a file. */
function startCpuProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
    );
  return (async () => {
    await post("Profiler.enable");
    await post("Profiler.setSamplingInterval", { interval: 1000 });
    await post("Profiler.start");
    return async (file: string) => {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    };
  })();
}

const MiB = 1024 * 1024;

async function main(side: Side, url: string): Promise<void> {
  const config = parseDatabaseUrl(url);
  if (config.kind === "sqlite") throw new Error("the bench runs on MySQL/MariaDB");
  let app: Parameters<typeof createServer>[1];
  let statements: () => number;
  let reruns = 0;
  if (side === "regapi") {
    const sql = new CountingSqlLogger();
    const dataSource = new DataSource(buildDataSourceOptions(config, { logger: sql }));
    await dataSource.initialize();
    const logger = createLogger("silent");
    // FEED_PASS_INTERVAL_MS as the service reads it, to measure the feed sequencer's spacing under a write load.
    const delivery = loadConfig({ FEED_PASS_INTERVAL_MS: process.env.FEED_PASS_INTERVAL_MS }).delivery;
    const appConfig = configWith({ graphqlIntrospection: false, rateLimit: RATE_LIMITS_OFF, delivery });
    const runtime = await startRuntime({ dataSource, config: appConfig, logger, deliveryWorker: false });
    runtime.state.reruns.onRerun(() => (reruns += 1));
    const regapi = await createApp({ dataSource, logger, config: appConfig, runtime });
    app = regapi.app;
    statements = () => sql.total;
  } else {
    const pool = createPool({
      host: config.host,
      port: config.port,
      user: config.user,
      password: config.password,
      database: config.database,
      timezone: "Z",
      charset: "utf8mb4",
      connectionLimit: 10,
    });
    app = createBaselineApp(pool);
    statements = () => baselineSql.total;
  }
  // Sampled often enough to catch the peak before a full collection brings it down.
  let peakRss = 0;
  let peakHeapUsed = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeapUsed = Math.max(peakHeapUsed, heapUsed);
  };
  setInterval(sample, 50).unref();
  const server = createServer(app);
  server.listen(0, "127.0.0.1", () => {
    const send = (message: SideMessage) => process.send?.(message);
    send({ type: "listening", port: (server.address() as AddressInfo).port });
    let stopProfile: ((file: string) => Promise<void>) | null = null;
    process.on("message", (request: SideRequest) => {
      if (request !== "stats") {
        void (async () => {
          if (request.type === "profile-start") {
            stopProfile = await startCpuProfile();
            send({ type: "profiling" });
          } else if (stopProfile) {
            await stopProfile(request.file);
            stopProfile = null;
            send({ type: "profiled", file: request.file });
          }
        })();
        return;
      }
      sample();
      send({
        type: "stats",
        statements: statements(),
        peakRssMiB: peakRss / MiB,
        peakHeapUsedMiB: peakHeapUsed / MiB,
        cpuMicros: Object.values(process.cpuUsage()).reduce((sum, micros) => sum + micros, 0),
        reruns,
      });
      peakRss = 0;
      peakHeapUsed = 0;
    });
  });
  // The parent ends the run by disconnecting (or dies): nothing to drain.
  process.on("disconnect", () => process.exit(0));
}

main(process.argv[2] as Side, process.argv[3] ?? "").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
