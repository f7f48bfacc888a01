import type { DataSource } from "typeorm";
import { AccountCache } from "../auth/account-cache";
import type { ReadCommittedPool } from "../db/read-committed-pool";
import type { ReplicaSet } from "../db/replicas";
import { SqliteTurns } from "../db/sqlite-turns";
import { TransactionReruns } from "../db/transaction-conflicts";
import { RegistrationPlans } from "./projects/registration-plans";
import { MemoryWalkPositions, type WalkPositionStore } from "./users/walk-positions";

/**
 * What lives for the process and requests use: made once by the runtime (src/runtime/) and
 * carried by AppDependencies and every request context, so no module keeps state of its own keyed
 * by the DataSource. A CLI run, the fixture loader and tests without a runtime make one with
 * `processStateOf` and hand it to every context on that DataSource.
 */
export interface ProcessState {
  readonly dataSource: DataSource;
  /** SQLite's one connection, taken in turns by every transaction on it. */
  readonly sqliteTurns: SqliteTurns;
  /** Reruns of units of work that lost a conflict, for /metrics and the log. */
  readonly reruns: TransactionReruns;
  /** The read replicas lock-free reads are routed over; undefined without DATABASE_REPLICA_URLS. */
  readonly replicas: ReplicaSet | undefined;
  /** Where get_user_list keeps the positions it hands out (Redis with REDIS_URL, else in process). */
  readonly walkPositions: WalkPositionStore;
  /** API accounts kept for ACCOUNT_CACHE_TTL_MS, which key management forgets at once. */
  readonly accounts: AccountCache;
  /** What registering into a project needs to know of it, read once per project and key set. */
  readonly registrationPlans: RegistrationPlans;
  /**
   * MySQL/MariaDB sessions at READ COMMITTED for `inTransaction`'s `readCommitted` (the runtime's,
   * which closes it); without one such a unit of work sets its level on a pooled connection.
   */
  readonly readCommitted?: ReadCommittedPool;
}

/** A process state for `dataSource`: no replicas, positions and accounts in process, unless given. */
export function processStateOf(
  dataSource: DataSource,
  parts: Partial<Omit<ProcessState, "dataSource">> = {},
): ProcessState {
  return {
    dataSource,
    sqliteTurns: parts.sqliteTurns ?? new SqliteTurns(dataSource),
    reruns: parts.reruns ?? new TransactionReruns(),
    replicas: parts.replicas,
    walkPositions: parts.walkPositions ?? new MemoryWalkPositions(),
    accounts: parts.accounts ?? new AccountCache(dataSource),
    registrationPlans: parts.registrationPlans ?? new RegistrationPlans(),
    readCommitted: parts.readCommitted,
  };
}
