import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger as TypeOrmLogger, QueryRunner } from "typeorm";

/** Per-request tally of SQL statements, carried through async calls. */
export interface SqlTally {
  statements: number;
  /** The process's own work (the feed sequencer, live events), which no request is charged for. */
  readonly background?: boolean;
}

const tallies = new AsyncLocalStorage<SqlTally>();

const BACKGROUND: SqlTally = { statements: 0, background: true };

/**
 * Runs `work`, and everything it starts, as the process's own work: its statements are charged to
 * no request that happens to be running (a request that woke it, or one measured meanwhile).
 */
export function runInBackground<T>(work: () => T): T {
  return tallies.run(BACKGROUND, work);
}

/** Runs `work` with a fresh statement tally; every statement issued under it is counted. */
export function withSqlTally<T>(work: () => T): { tally: SqlTally; result: T } {
  const tally: SqlTally = { statements: 0 };
  return { tally, result: tallies.run(tally, work) };
}

export function currentSqlTally(): SqlTally | undefined {
  return tallies.getStore();
}

/**
 * TypeORM logger that counts statements (for request logs and the statement-bound tests) and
 * reports failures through a callback; it never logs parameters, which may hold secrets.
 */
export class CountingSqlLogger implements TypeOrmLogger {
  /** Statements issued through this DataSource since start, for tests that measure a delta. */
  total = 0;
  /** Those of them issued by background work (runInBackground). */
  background = 0;

  constructor(private readonly onError: (message: string) => void = () => undefined) {}

  logQuery(_query: string, _parameters?: unknown[], _queryRunner?: QueryRunner): void {
    this.total += 1;
    const tally = tallies.getStore();
    if (tally?.background) this.background += 1;
    else if (tally) tally.statements += 1;
  }

  logQueryError(error: string | Error, query: string): void {
    this.onError(`${error instanceof Error ? error.message : error} in: ${query.slice(0, 200)}`);
  }

  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
