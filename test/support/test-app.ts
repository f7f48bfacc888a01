import type { Express } from "express";
import { createApp, type RegapiApp } from "../../src/app";
import type { Config } from "../../src/config/config";
import { createRequestContext } from "../../src/domain/context";
import { createLogger } from "../../src/http/logger";
import { startRuntime, type Runtime } from "../../src/runtime/runtime";
import { MAPLE_PRINCIPAL, openDomainDatabase, type DomainDatabase } from "./domain-database";
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
  const runtime = await startRuntime({
    dataSource: db.dataSource,
    config,
    logger,
    deliveryWorker: false,
    shareWith: db.state,
  });
  const regapi = await createApp({ dataSource: db.dataSource, logger, config, runtime });
  return {
    ...db,
    // Domain calls of the test run in the app's process state, as its requests do.
    state: runtime.state,
    context: (principal = MAPLE_PRINCIPAL) => createRequestContext(runtime.state, "test", principal),
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
