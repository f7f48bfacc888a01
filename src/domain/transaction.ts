import type { RequestContext } from "./context";

/**
 * The one place a transaction starts. Nested calls reuse the outer transaction, so a domain
 * method can call another and both commit or roll back together: a failed call writes nothing.
 */
export async function inTransaction<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  return ctx.dataSource.transaction((em) => work({ ...ctx, em, inTransaction: true }));
}
