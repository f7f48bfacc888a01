import type { Express } from "express";
import { createApp, type RegapiApp } from "../../src/app";
import { createRequestContext, type Principal, type RequestContext } from "../../src/domain/context";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { createLogger } from "../../src/http/logger";
import { testFixture } from "../fixtures/test-fixture";
import { openTestDatabase, type TestDatabase } from "./database";

export interface TestApp extends TestDatabase {
  app: Express;
  regapi: RegapiApp;
  /** A domain context as the given principal (default: the Maple Camps API account). */
  context(principal?: Principal | null): RequestContext;
  /** Statements issued while `work` runs (the tests run one request at a time). */
  countStatements<T>(work: () => Promise<T>): Promise<{ statements: number; result: T }>;
  close(): Promise<void>;
}

export const MAPLE_PRINCIPAL: Principal = { apiAccountId: 15263, apiUser: "api_admin@maple.test", organizationId: 1 };

/** A migrated database with the test fixture loaded and an in-process app on it. */
export async function startTestApp(
  options: { fixture?: unknown; config?: { loginTokenTtlSeconds?: number } } = {},
): Promise<TestApp> {
  const db = await openTestDatabase();
  const logger = createLogger("silent");
  const fixture = options.fixture === undefined ? testFixture() : options.fixture;
  if (fixture !== null) await loadFixture(createRequestContext(db.dataSource, "fixture"), fixture);
  const regapi = await createApp({
    dataSource: db.dataSource,
    logger,
    config: { graphqlIntrospection: true, ...options.config },
  });
  return {
    ...db,
    app: regapi.app,
    regapi,
    context: (principal = MAPLE_PRINCIPAL) => createRequestContext(db.dataSource, "test", principal),
    async countStatements(work) {
      const before = db.sql.total;
      const result = await work();
      return { statements: db.sql.total - before, result };
    },
    async close() {
      await regapi.stop();
      await db.dispose();
    },
  };
}
