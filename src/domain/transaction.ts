import { holdSqliteTurn, inSqliteTurn } from "../db/sqlite-turns";
import { startReadSnapshot } from "../data/read-snapshot.data";
import type { RequestContext } from "./context";

// better-sqlite3 has a single connection: a second BEGIN while a transaction is open fails with
// "cannot start a transaction within a transaction" (concurrent requests, or parallel GraphQL
// root fields). There, transactions take turns; MySQL/MariaDB use a pool and need no queue.

/**
 * The one place a transaction starts. Nested calls reuse the outer transaction, so a domain
 * method can call another and both commit or roll back together: a failed call writes nothing.
 */
export async function inTransaction<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  // eslint-disable-next-line no-restricted-syntax -- the one place a transaction starts
  const run = () => ctx.dataSource.transaction((em) => work({ ...ctx, em, inTransaction: true }));
  return inSqliteTurn(ctx.dataSource, run);
}

/** A context whose reads all see one snapshot, until `close`. */
export interface ReadSnapshotContext {
  ctx: RequestContext;
  close(): Promise<void>;
}

/**
 * Opens one consistent read for a whole read-only request (a GraphQL query): its nested lists and
 * summaries cannot disagree because a write committed between two of its statements. On
 * MySQL/MariaDB a read-only transaction WITH CONSISTENT SNAPSHOT on one pooled connection; on
 * SQLite the request holds the transaction turn, so no write commits until it closes. Calls of
 * `inTransaction` inside reuse it: the context must only read.
 */
export async function openReadSnapshot(ctx: RequestContext): Promise<ReadSnapshotContext> {
  if (ctx.inTransaction) return { ctx, close: async () => undefined };
  if (ctx.dataSource.options.type === "better-sqlite3") {
    const release = await holdSqliteTurn(ctx.dataSource);
    return { ctx: { ...ctx, inTransaction: true }, close: async () => release() };
  }
  const snapshot = await startReadSnapshot(ctx.dataSource);
  return { ctx: { ...ctx, em: snapshot.em, inTransaction: true }, close: () => snapshot.end() };
}
