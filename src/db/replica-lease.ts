import type { DataSource, QueryRunner } from "typeorm";
import { databaseFailureOf } from "./database-failure";
import { mysqlDriverOf, runnerInternalsOf, type PooledConnection } from "./driver-internals";

// The lease part of the read replicas (src/db/replicas.ts routes, and checks their health): a
// routed read runs on a query runner that holds one replica connection for its whole request.
// When the replica goes away under it, the rest of the read moves to the primary.

/** How a read snapshot starts (src/data/read-snapshot.data.ts), on a replica as on the primary. */
export const SNAPSHOT_START = "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY";

type Failover = (error: unknown, failedOn: PooledConnection | undefined, startsSnapshot?: boolean) => Promise<boolean>;

const leases = new WeakMap<QueryRunner, { failover: Failover }>();

/**
 * A query runner of `dataSource` on the replica `connection`; `onReplicaFailed` hears of the
 * failure that moved the read to the primary (once).
 */
export function leaseReplicaConnection(
  dataSource: DataSource,
  connection: PooledConnection,
  snapshot: boolean,
  onReplicaFailed: (error: unknown) => void,
): QueryRunner {
  const driver = mysqlDriverOf(dataSource);
  const runner = dataSource.createQueryRunner();
  const internals = runnerInternalsOf(runner);
  internals.databaseConnection = driver.prepareDbConnection(connection);
  const onReplica = internals.databaseConnection;
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  let movedToPrimary: Promise<void> | null = null;
  const failover: Failover = (error, failedOn, startsSnapshot = false) => {
    // Only a statement that failed on the replica's connection moves (a failure on the primary
    // afterwards is the primary's). Statements in flight together fail together (a query's
    // root fields read at once): the first starts the move, the others wait for it and run
    // again on the primary too.
    if (failedOn !== onReplica || databaseFailureOf(error) === null) return Promise.resolve(false);
    movedToPrimary ??= (async () => {
      onReplicaFailed(error);
      onReplica?.destroy();
      internals.databaseConnection = await driver.obtainMasterConnection();
      // The statement that failed reruns: when it was the snapshot's own START, that is enough.
      if (snapshot && !startsSnapshot) await query(SNAPSHOT_START);
    })();
    return movedToPrimary.then(() => true);
  };
  leases.set(runner, { failover });
  // TypeORM's own statements on this runner (repositories, query builders) move the same way
  // as the pooled ones (src/db/pooled-select.ts calls failoverReplicaRead itself).
  runner.query = (async (...args: unknown[]) => {
    const failedOn = internals.databaseConnection;
    try {
      return await query(...args);
    } catch (error) {
      const sql = String(args[0]);
      // A read-only transaction's end loses nothing when it fails: no need to move for it.
      if (/^\s*(COMMIT|ROLLBACK)\b/i.test(sql)) throw error;
      if (!(await failover(error, failedOn, sql === SNAPSHOT_START))) throw error;
      return query(...args);
    }
  }) as QueryRunner["query"];
  return runner;
}

/**
 * When a statement of a replica read failed because the replica went away (unreachable, timed
 * out), moves the read to the primary and returns true: the caller runs the statement again.
 * `failedOn` is the connection the statement ran on: a failure on the primary is not moved.
 */
export async function failoverReplicaRead(
  runner: QueryRunner | undefined,
  error: unknown,
  failedOn: unknown,
): Promise<boolean> {
  const lease = runner ? leases.get(runner) : undefined;
  return lease ? lease.failover(error, failedOn as PooledConnection | undefined) : false;
}
