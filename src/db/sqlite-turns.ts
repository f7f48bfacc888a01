import type { DataSource } from "typeorm";

const sqliteTurns = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` when no other turn of this SQLite database is running; on MySQL/MariaDB at once.
 * SQLite has one connection: a statement sent while another request's transaction is open would
 * join that transaction (and vanish with its rollback), so every transaction, and every write
 * made outside the domain's transactions, takes its turn.
 */
export function inSqliteTurn<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== "better-sqlite3") return work();
  const turn = (sqliteTurns.get(dataSource) ?? Promise.resolve()).then(work);
  sqliteTurns.set(
    dataSource,
    turn.catch(() => undefined),
  );
  return turn;
}

/**
 * Takes this SQLite database's turn and keeps it until the returned release is called (a GraphQL
 * query's read snapshot: no write commits between its statements). On MySQL/MariaDB at once.
 */
export async function holdSqliteTurn(dataSource: DataSource): Promise<() => void> {
  if (dataSource.options.type !== "better-sqlite3") return () => undefined;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const previous = sqliteTurns.get(dataSource) ?? Promise.resolve();
  sqliteTurns.set(
    dataSource,
    previous.then(() => held),
  );
  await previous;
  return release;
}
