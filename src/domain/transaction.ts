import { setTimeout as sleep } from "node:timers/promises";
import {
  databaseErrorOf,
  mayRerun,
  retryDelayMs,
  sessionLostOf,
  transactionConflictOf,
  type RerunCause,
} from "../db/transaction-conflicts";
import { startReadSnapshot } from "../data/read-snapshot.data";
import { readLastCommitPosition } from "../data/replication.data";
import { clearReportedPosition, reportedCommitPosition } from "../db/commit-positions";
import { laterGtidPosition, parseGtidPosition } from "../db/gtid";
import type { ReplicaSet } from "../db/replicas";
import { consistencyKeysOf, type RequestContext } from "./context";
import { completeUnitOfWork, openUnitOfWork, type Actor } from "./unit-of-work";

/** Who the request acts for: its API account, its registrant session, else the system. */
function actorOf(ctx: RequestContext): Actor {
  if (ctx.principal) return { type: "api_account", api_account_id: ctx.principal.apiAccountId };
  if (ctx.registrant)
    return { type: "registrant", group_id: ctx.registrant.groupId, clogin_id: ctx.registrant.cloginId };
  return { type: "system" };
}

// better-sqlite3 has a single connection: a second BEGIN while a transaction is open fails with
// "cannot start a transaction within a transaction" (concurrent requests, or parallel GraphQL
// root fields). There, transactions take turns; MySQL/MariaDB use a pool and need no queue.

export interface TransactionOptions {
  /**
   * MySQL/MariaDB: run at READ COMMITTED instead of the default REPEATABLE READ, on a session of
   * the process state's `readCommitted` pool, which runs at that level (else on a pooled
   * connection, one statement more: SET TRANSACTION before the BEGIN). A locking read then locks
   * the rows it returns and no gap: for a claim by `SKIP LOCKED` of rows that writes keep
   * inserting into the range it scans (docs/locking.md), which at REPEATABLE READ would make each
   * such INSERT wait for the claim's COMMIT. SQLite: ignored (transactions take turns).
   */
  readCommitted?: boolean;
}

/**
 * The one place a transaction starts. Nested calls reuse the outer transaction, so a domain
 * method can call another and both commit or roll back together: a failed call writes nothing.
 *
 * A transaction that loses a deadlock or a lock wait to another one (on Galera also a write set
 * that failed certification) is rolled back by the database; the whole unit of work then runs
 * again from the start, with jittered backoff, before the conflict is answered 503: up to
 * TRANSACTION_ATTEMPTS runs, and after a deadlock more while within DEADLOCK_RERUN_WINDOW_MS of the
 * first run (mayRerun). `work` must therefore keep its effects inside the transaction (rows, events,
 * counter deltas, outbox emails, trigger firings): nothing leaves the process before COMMIT, so
 * a rerun repeats nothing a client or a receiver could see. Events and counter deltas are written
 * at the end of the unit of work (src/domain/unit-of-work.ts).
 *
 * A unit of work whose session was lost before its COMMIT was sent (the connection closed or
 * reset, the node killed, shutting down or cut off from a Galera cluster) is rerun the same way on
 * a new connection: the server rolled the transaction back with the session. One whose session was
 * lost while its COMMIT was on the way is not: it may have committed, so it fails (503) and the
 * client decides (an Idempotency-Key makes its retry safe).
 *
 * `action` names the unit of work (`users.add_email`, `delivery.fan_out`, …): reruns are counted
 * (`regapi_transaction_reruns_total`) and logged by it. A nested call runs in the outer unit of
 * work, under the outer's name.
 */
export async function inTransaction<T>(
  ctx: RequestContext,
  action: string,
  work: (tx: RequestContext) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  if (ctx.inTransaction) return work(ctx);
  const isolation =
    options.readCommitted && ctx.dataSource.options.type !== "better-sqlite3" ? ("READ COMMITTED" as const) : null;
  /** Set once the run's last statement before COMMIT has answered: from then on a lost session may have committed. */
  let committing: boolean;
  const body = async (em: RequestContext["em"]) => {
    openUnitOfWork(em, actorOf(ctx));
    const result = await work({ ...ctx, em, inTransaction: true });
    await completeUnitOfWork(em);
    committing = true;
    return result;
  };
  const { replicas, sqliteTurns, reruns } = ctx.state;
  const keys = consistencyKeysOf(ctx);
  const readCommitted = isolation ? ctx.state.readCommitted : undefined;
  const run =
    replicas && keys.length > 0
      ? () => transactionNotingPosition(ctx, replicas, keys, body, isolation)
      : readCommitted
        ? // eslint-disable-next-line no-restricted-syntax -- the one place a transaction starts
          () => readCommitted.transaction(body)
        : isolation
          ? // eslint-disable-next-line no-restricted-syntax -- the one place a transaction starts
            () => ctx.dataSource.transaction(isolation, body)
          : // eslint-disable-next-line no-restricted-syntax -- the one place a transaction starts
            () => ctx.dataSource.transaction(body);
  const firstRunAt = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    committing = false;
    try {
      return await sqliteTurns.run(run);
    } catch (error) {
      const conflict: RerunCause | null =
        transactionConflictOf(error) ?? (!committing && sessionLostOf(error) ? "connection_lost" : null);
      if (conflict === null) throw error;
      const delayMs = retryDelayMs(attempt);
      if (!mayRerun(conflict, attempt, performance.now() - firstRunAt + delayMs)) {
        reruns.noteExhausted(action);
        throw error;
      }
      reruns.noteRerun({
        action,
        cause: conflict,
        ...databaseErrorOf(error),
        run: attempt,
        delayMs,
        requestId: ctx.requestId,
      });
      await sleep(delayMs);
    }
  }
}

/**
 * With replicas, a principal's write notes where the primary stood after its COMMIT, so that the
 * principal's next read on a replica waits for it. The COMMIT's own answer reports @@last_gtid
 * (src/db/commit-positions.ts): no statement more. A connection that cannot report it reads
 * @@last_gtid after the COMMIT instead (one statement); that value may be an earlier request's
 * when this one wrote nothing: an earlier position, which the store's merge makes harmless.
 */
async function transactionNotingPosition<T>(
  ctx: RequestContext,
  replicas: ReplicaSet,
  keys: string[],
  body: (em: RequestContext["em"]) => Promise<T>,
  isolation: "READ COMMITTED" | null,
): Promise<T> {
  const runner = ctx.dataSource.createQueryRunner();
  let result: T;
  let committed: string;
  try {
    await runner.connect();
    clearReportedPosition(runner);
    // eslint-disable-next-line no-restricted-syntax -- the one place a transaction starts
    result = await (isolation ? runner.manager.transaction(isolation, body) : runner.manager.transaction(body));
    committed = reportedCommitPosition(runner) ?? (await readLastCommitPosition(runner));
  } finally {
    await runner.release();
  }
  const position = parseGtidPosition(committed);
  if (position) {
    if (ctx.consistency) ctx.consistency.position = laterGtidPosition(ctx.consistency.position, position);
    // Noted before the answer leaves: a read sent after it, through any instance, finds it.
    await replicas.noteWrite(keys, position).catch(() => undefined);
  }
  return result;
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
    const release = await ctx.state.sqliteTurns.hold();
    return { ctx: { ...ctx, inTransaction: true }, close: async () => release() };
  }
  const lease = await routeRead(ctx, true);
  const snapshot = await startReadSnapshot(ctx.dataSource, lease?.runner);
  return { ctx: { ...ctx, em: snapshot.em, inTransaction: true }, close: () => snapshot.end() };
}

/**
 * Opens a read that takes no lock for a whole request (REST get_info, get_user_list,
 * get_project_list; a GraphQL query answered in one statement): with replicas, its statements run
 * on one replica connection chosen by src/db/replicas.ts (or on the primary's pool, as without
 * replicas). The context must only read; a write inside still starts its own transaction on the
 * primary.
 */
export async function openLockFreeRead(ctx: RequestContext): Promise<ReadSnapshotContext> {
  if (ctx.inTransaction) return { ctx, close: async () => undefined };
  const lease = await routeRead(ctx, false);
  if (!lease) return { ctx, close: async () => undefined };
  return { ctx: { ...ctx, em: lease.runner.manager }, close: () => lease.release() };
}

/** The replica lease for a routed read (null: the primary), noting the position it honours. */
async function routeRead(ctx: RequestContext, snapshot: boolean) {
  const { replicas } = ctx.state;
  if (!replicas) return null;
  const routed = await replicas.route(
    { principalKeys: consistencyKeysOf(ctx), requested: ctx.consistency?.requested ?? null },
    snapshot,
  );
  if (ctx.consistency) ctx.consistency.position = laterGtidPosition(ctx.consistency.position, routed.position);
  return routed.lease;
}
