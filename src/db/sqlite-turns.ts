import type { DataSource } from "typeorm";

/**
 * How long turns may follow one another before the event loop gets one. better-sqlite3 answers
 * each statement at once, so a queue of SQLite transactions runs as one chain of promise callbacks,
 * during which no socket is read and no connection accepted: a busy process takes one new
 * connection per turn of its loop, and under a burst of new connections the last one's first
 * request waited seconds while the keep-alive ones were served (BENCHMARKS.md, registration day).
 * Every couple of milliseconds the next turn therefore starts from setImmediate, after the loop
 * has polled; a shorter interval costs throughput, a longer one brings the tail back.
 */
const LOOP_TURN_EVERY_MS = 2;

/**
 * SQLite has one connection: a statement sent while another request's transaction is open would
 * join that transaction (and vanish with its rollback), so every transaction, and every write
 * made outside the domain's transactions, takes its turn. One per DataSource, made with the
 * process state (src/domain/process-state.ts) and shared by everything that uses the DataSource.
 * On MySQL/MariaDB (a pool) every turn is taken at once.
 */
export class SqliteTurns {
  private last: Promise<unknown> = Promise.resolve();
  private readonly sqlite: boolean;
  /** When the event loop last ran between two turns. */
  private loopTurnedAt = 0;

  constructor(dataSource: DataSource) {
    this.sqlite = dataSource.options.type === "better-sqlite3";
  }

  /** Runs `work` when no other turn is running. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.sqlite) return work();
    const turn = this.last.then(() => this.letTheLoopTurn()).then(work);
    this.last = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Takes the turn and keeps it until the returned release is called (a GraphQL query's read
   * snapshot: no write commits between its statements).
   */
  async hold(): Promise<() => void> {
    if (!this.sqlite) return () => undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ready = this.last.then(() => this.letTheLoopTurn());
    this.last = ready.then(() => held);
    await ready;
    return release;
  }

  /** Resolves at once, or, once the turns have run LOOP_TURN_EVERY_MS without a break, after the loop's next poll. */
  private letTheLoopTurn(): Promise<void> | undefined {
    if (performance.now() - this.loopTurnedAt < LOOP_TURN_EVERY_MS) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.loopTurnedAt = performance.now();
        resolve();
      }),
    );
  }
}
