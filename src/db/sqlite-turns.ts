import type { DataSource } from "typeorm";

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

  constructor(dataSource: DataSource) {
    this.sqlite = dataSource.options.type === "better-sqlite3";
  }

  /** Runs `work` when no other turn is running. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.sqlite) return work();
    const turn = this.last.then(work);
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
    const previous = this.last;
    this.last = previous.then(() => held);
    await previous;
    return release;
  }
}
