import type { DataSource } from "typeorm";

// Transactions that lost a conflict with another transaction: InnoDB's deadlock victim (1213
// ER_LOCK_DEADLOCK, which is also how Galera reports a write set that failed certification against
// another node's) and a lock wait that timed out (1205 ER_LOCK_WAIT_TIMEOUT). Both roll the
// statement or the whole transaction back and say "try restarting transaction": the work is
// sound, only its timing lost. inTransaction (src/domain/transaction.ts) reruns the whole unit of
// work a bounded number of times; what still fails is answered 503 (src/db/database-failure.ts).

export type TransactionConflict = "deadlock" | "lock_wait_timeout";

const ERRNO: Record<number, TransactionConflict> = { 1213: "deadlock", 1205: "lock_wait_timeout" };

/** The conflict an error reports, or null when it is something else (SQLite never reports one). */
export function transactionConflictOf(error: unknown): TransactionConflict | null {
  if (!(error instanceof Error)) return null;
  const errno =
    (error as { errno?: unknown }).errno ?? (error as { driverError?: { errno?: unknown } }).driverError?.errno;
  return typeof errno === "number" ? (ERRNO[errno] ?? null) : null;
}

/**
 * Runs of a unit of work, the first included, before its conflict is answered 503. A deadlock
 * victim loses at once and costs a few milliseconds, so it gets more runs: with several Galera
 * writers, every write to one family writes the parent's row and concurrent ones through two
 * nodes fail certification in turn (50 at once: 1 of 50 still failed after 4 runs, none after 8).
 * A lock wait timeout has already waited innodb_lock_wait_timeout: fewer runs.
 */
export const TRANSACTION_ATTEMPTS: Readonly<Record<TransactionConflict, number>> = Object.freeze({
  deadlock: 8,
  lock_wait_timeout: 4,
});

/**
 * How long to wait before run `attempt + 1`: exponential from 10 ms with full jitter, so the
 * transactions that collided do not collide again in step; capped (below).
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * 10 * 2 ** Math.min(attempt, MAX_BACKOFF_DOUBLINGS));
}

/** The backoff stops growing at 10 × 2^6 = 640 ms (the longest wait before one run). */
const MAX_BACKOFF_DOUBLINGS = 6;

/** Reruns per DataSource since start, by cause, and units of work that still failed (for /metrics). */
export interface TransactionRetryCounts {
  deadlock: number;
  lock_wait_timeout: number;
  exhausted: number;
}

const counts = new WeakMap<DataSource, TransactionRetryCounts>();

export function transactionRetryCountsOf(dataSource: DataSource): TransactionRetryCounts {
  let entry = counts.get(dataSource);
  if (!entry) {
    entry = { deadlock: 0, lock_wait_timeout: 0, exhausted: 0 };
    counts.set(dataSource, entry);
  }
  return entry;
}
