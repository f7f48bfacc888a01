import type { Express } from "express";
import { createApp, type RegapiApp } from "../../src/app";
import type { Config } from "../../src/config/config";
import { createLogger } from "../../src/http/logger";
import { startRuntime, type Runtime } from "../../src/runtime/runtime";
import { openDomainDatabase, type DomainDatabase } from "./domain-database";
import { testConfig } from "./test-config";

export interface TestApp extends DomainDatabase {
  app: Express;
  regapi: RegapiApp;
  /** What lives for the app's process (src/runtime/), started as main starts it, without the delivery worker. */
  runtime: Runtime;
  close(): Promise<void>;
}

/** A migrated database with the test fixture loaded and an in-process app on it. */
export async function startTestApp(options: { fixture?: unknown; config?: Partial<Config> } = {}): Promise<TestApp> {
  const db = await openDomainDatabase(options);
  const logger = createLogger("silent");
  // Eligible queries compiled from their first run: every test exercises the compiled path.
  const config = testConfig({ graphqlCompileOnFirstRun: true, ...options.config });
  // Started as main starts it (src/runtime/), without the delivery worker: tests run it themselves.
  const runtime = await startRuntime({ dataSource: db.dataSource, config, logger, deliveryWorker: false });
  const regapi = await createApp({ dataSource: db.dataSource, logger, config, runtime });
  return {
    ...db,
    app: regapi.app,
    regapi,
    runtime,
    async close() {
      await regapi.stop();
      await runtime.stop();
      await db.dispose();
    },
  };
}
