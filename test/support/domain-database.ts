import "reflect-metadata";
import { createRequestContext, type Principal, type RequestContext } from "../../src/domain/context";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { testFixture } from "../fixtures/test-fixture";
import { openTestDatabase, type TestDatabase } from "./database";

/** The demo key, as authentication returns it: made before scopes, so unlimited. */
export const MAPLE_PRINCIPAL: Principal = {
  apiAccountId: 15263,
  apiUser: "api_admin@maple.test",
  organizationId: 1,
  scope: { groupIds: null, operations: null },
};

export interface DomainDatabase extends TestDatabase {
  /** A domain context as the given principal (default: the Maple Camps API account). */
  context(principal?: Principal | null): RequestContext;
  /**
   * Statements issued while `work` runs (the tests run one call at a time), without the process's
   * background work (the feed sequencer and live events, woken by a write's commit).
   */
  countStatements<T>(work: () => Promise<T>): Promise<{ statements: number; result: T }>;
  /** Every statement issued while `work` runs, background work included. */
  countAllStatements<T>(work: () => Promise<T>): Promise<{ statements: number; result: T }>;
}

/**
 * A migrated database with a fixture loaded (default: the test fixture; null: none), for calling
 * the domain directly, without an app or HTTP.
 */
export async function openDomainDatabase(options: { fixture?: unknown } = {}): Promise<DomainDatabase> {
  const db = await openTestDatabase();
  const { state } = db;
  const fixture = options.fixture === undefined ? testFixture() : options.fixture;
  if (fixture !== null) await loadFixture(createRequestContext(state, "fixture"), fixture);
  return {
    ...db,
    context: (principal = MAPLE_PRINCIPAL) => createRequestContext(state, "test", principal),
    async countStatements(work) {
      const before = db.sql.total - db.sql.background;
      const result = await work();
      return { statements: db.sql.total - db.sql.background - before, result };
    },
    async countAllStatements(work) {
      const before = db.sql.total;
      const result = await work();
      return { statements: db.sql.total - before, result };
    },
  };
}
