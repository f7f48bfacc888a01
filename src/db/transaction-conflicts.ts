// Transactions that lost a conflict with another transaction: InnoDB's deadlock victim (1213
// ER_LOCK_DEADLOCK, which is also how Galera reports a write set that failed certification against
// another node's) and a lock wait that timed out (1205 ER_LOCK_WAIT_TIMEOUT). Both roll the
// statement or the whole transaction back and say "try restarting transaction": the work is
// sound, only its timing lost. inTransaction (src/domain/transaction.ts) reruns the whole unit of
// work a bounded number of times; what still fails is answered 503 (src/db/database-failure.ts).

export type TransactionConflict = "deadlock" | "lock_wait_timeout";

/**
 * Why inTransaction ran a unit of work again: a conflict, or a session that was lost before its
 * COMMIT was sent (connection_lost: see sessionLostOf).
 */
export type RerunCause = TransactionConflict | "connection_lost";

const ERRNO: Record<number, TransactionConflict> = { 1213: "deadlock", 1205: "lock_wait_timeout" };

/** The conflict an error reports, or null when it is something else (SQLite never reports one). */
export function transactionConflictOf(error: unknown): TransactionConflict | null {
  if (!(error instanceof Error)) return null;
  const { errno } = databaseErrorOf(error);
  return errno === null ? null : (ERRNO[errno] ?? null);
}

/**
 * Runs of a unit of work, the first included, before its conflict is answered 503 (for a
 * deadlock, the least it gets: see mayRerun). A deadlock victim loses at once and costs a few
 * milliseconds, so it gets more runs: with several Galera writers, every write to one family
 * writes the parent's row and concurrent ones through two nodes fail certification in turn (what
 * 4 and 8 runs left failing: BENCHMARKS.md, "Reruns of a certification conflict").
 * A lock wait timeout has already waited innodb_lock_wait_timeout: fewer runs.
 */
export const TRANSACTION_ATTEMPTS: Readonly<Record<RerunCause, number>> = Object.freeze({
  deadlock: 8,
  lock_wait_timeout: 4,
  // A lost session is rerun on a new one, which HAProxy opens to a node that serves; a second
  // loss in a row means the database is down rather than one node or one connection.
  connection_lost: 3,
});

// The session is gone and took its open transaction with it: the server (or, on Galera, the node
// that died) rolled back everything the session had not committed, and its write set was never
// replicated, since Galera replicates at COMMIT. mysql2's codes for a connection closed or refused
// under it, a server or Galera node that refused the statement (1053 ER_SERVER_SHUTDOWN, 1927
// ER_CONNECTION_KILLED, 1047 "WSREP has not yet prepared node for application use"), and mysql2's
// message for a command sent on a connection it had already seen close. Not a client-side
// statement timeout (PROTOCOL_SEQUENCE_TIMEOUT): that statement may still run on the server, and
// its request has already spent its time.
const SESSION_LOST_CODES = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_UNKNOWN_COM_ERROR",
]);
const SESSION_LOST_MESSAGE =
  /Can't add new command when connection is in closed state|Connection lost: The server closed/;

/**
 * Whether `error` says the session was lost under the transaction. inTransaction reruns such a
 * unit of work on a new connection only when the loss came before its COMMIT was sent: a COMMIT
 * whose answer was lost may have committed (on Galera, once its write set reached the other
 * nodes), and running the work again would apply it twice.
 */
export function sessionLostOf(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = databaseErrorOf(error);
  if (code !== null && SESSION_LOST_CODES.has(code)) return true;
  const driverMessage = (error as { driverError?: { message?: unknown } }).driverError?.message;
  return SESSION_LOST_MESSAGE.test(`${error.message} ${typeof driverMessage === "string" ? driverMessage : ""}`);
}

/**
 * How long after a unit of work's first run began a deadlock victim may still start another run,
 * past its TRANSACTION_ATTEMPTS: the default acquire timeout (DATABASE_ACQUIRE_TIMEOUT_MS), the
 * longest a request is otherwise made to wait for the database before it is answered 503.
 */
export const DEADLOCK_RERUN_WINDOW_MS = 3000;

/**
 * Whether a unit of work that lost run `attempt` to `cause` runs again, its next run starting
 * `nextRunAtMs` after its first run began. Lock wait timeouts and lost sessions: by count alone.
 * A deadlock victim: at least TRANSACTION_ATTEMPTS.deadlock runs, then more while the next one
 * starts within DEADLOCK_RERUN_WINDOW_MS. A count alone is the wrong bound for deadlocks, because
 * one unit of work's losses are not independent: through two Galera nodes, a long unit of work
 * (a child's update with its form's triggers, a dozen statements holding the family's parent row)
 * is aborted by every write to that row the other node commits while it runs, so it loses run
 * after run for as long as the other node's burst of writes lasts, while short ones get through.
 * What ends its losses is time, not a number of tries (BENCHMARKS.md, "Reruns of a certification
 * conflict"). The window still bounds a conflict that does not end: 503 once it is spent.
 */
export function mayRerun(cause: RerunCause, attempt: number, nextRunAtMs: number): boolean {
  if (attempt < TRANSACTION_ATTEMPTS[cause]) return true;
  return cause === "deadlock" && nextRunAtMs < DEADLOCK_RERUN_WINDOW_MS;
}

/**
 * How long to wait before run `attempt + 1`: exponential from 10 ms with full jitter, so the
 * transactions that collided do not collide again in step; capped (below).
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * 10 * 2 ** Math.min(attempt, MAX_BACKOFF_DOUBLINGS));
}

/** The backoff stops growing at 10 × 2^6 = 640 ms (the longest wait before one run). */
const MAX_BACKOFF_DOUBLINGS = 6;

/** The MariaDB/MySQL error an error reports (errno and code, e.g. 1213 ER_LOCK_DEADLOCK), or nulls. */
export function databaseErrorOf(error: unknown): { errno: number | null; code: string | null } {
  const own = error as { errno?: unknown; code?: unknown; driverError?: { errno?: unknown; code?: unknown } };
  const errno = own?.errno ?? own?.driverError?.errno;
  const code = own?.code ?? own?.driverError?.code;
  return { errno: typeof errno === "number" ? errno : null, code: typeof code === "string" ? code : null };
}

/** Reruns by cause, and units of work that still failed after every run (answered 503). */
export interface TransactionRetryCounts {
  deadlock: number;
  lock_wait_timeout: number;
  connection_lost: number;
  exhausted: number;
}

/** One rerun, as the listeners (the app's log) hear of it. */
export interface TransactionRerun {
  action: string;
  cause: RerunCause;
  /** The database's error number and code (1213 ER_LOCK_DEADLOCK, 1205 ER_LOCK_WAIT_TIMEOUT, PROTOCOL_CONNECTION_LOST). */
  errno: number | null;
  code: string | null;
  /** The run that failed (1 for the first). */
  run: number;
  /** The wait before the next run. */
  delayMs: number;
  requestId: string;
}

const zero = (): TransactionRetryCounts => ({ deadlock: 0, lock_wait_timeout: 0, connection_lost: 0, exhausted: 0 });

/**
 * Reruns since start, in total and by the action whose unit of work ran (for /metrics), and the
 * listeners that hear of each (the log). One per process state (src/domain/process-state.ts).
 */
export class TransactionReruns {
  /** Reruns by cause, and units of work that still failed (all actions). */
  readonly total: TransactionRetryCounts = zero();
  /** The same tallies by action (the name each unit of work gives inTransaction). */
  readonly byAction = new Map<string, TransactionRetryCounts>();
  private readonly listeners = new Set<(rerun: TransactionRerun) => void>();

  /** Counts a rerun and tells the listeners. */
  noteRerun(rerun: TransactionRerun): void {
    this.total[rerun.cause] += 1;
    this.countOf(rerun.action)[rerun.cause] += 1;
    for (const listener of this.listeners) listener(rerun);
  }

  /** Counts a unit of work whose conflict outlasted its runs. */
  noteExhausted(action: string): void {
    this.total.exhausted += 1;
    this.countOf(action).exhausted += 1;
  }

  /** Calls `listener` on every rerun; returns the unsubscribe. */
  onRerun(listener: (rerun: TransactionRerun) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private countOf(action: string): TransactionRetryCounts {
    let counts = this.byAction.get(action);
    if (!counts) {
      counts = zero();
      this.byAction.set(action, counts);
    }
    return counts;
  }
}
