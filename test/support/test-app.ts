import type { Express } from "express";
import { createApp, type RegapiApp } from "../../src/app";
import type { Config } from "../../src/config/config";
import { createLogger } from "../../src/http/logger";
import { openDomainDatabase, type DomainDatabase } from "./domain-database";
import { testConfig } from "./test-config";

export interface TestApp extends DomainDatabase {
  app: Express;
  regapi: RegapiApp;
  close(): Promise<void>;
}

/** A migrated database with the test fixture loaded and an in-process app on it. */
export async function startTestApp(options: { fixture?: unknown; config?: Partial<Config> } = {}): Promise<TestApp> {
  const db = await openDomainDatabase(options);
  const regapi = await createApp({
    dataSource: db.dataSource,
    logger: createLogger("silent"),
    // Eligible queries compiled from their first run: every test exercises the compiled path.
    config: testConfig({ graphqlCompileOnFirstRun: true, ...options.config }),
  });
  return {
    ...db,
    app: regapi.app,
    regapi,
    async close() {
      await regapi.stop();
      await db.dispose();
    },
  };
}
