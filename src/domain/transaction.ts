import { inSqliteTurn } from "../db/sqlite-turns";
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
