import type { DataSource, QueryRunner } from "typeorm";
import { mysqlPoolOf, poolConnections, runnerInternalsOf } from "./driver-internals";

// Where the primary stood after a transaction's COMMIT, without another statement: each primary
// connection asks MariaDB to report @@last_gtid in the OK packet of the statement that changed it
// (session_track_system_variables), and mysql2 hands those changes back with the result. The
// COMMIT of a transaction that wrote changes it; one that wrote nothing does not.

interface TrackedConnection {
  query(...args: unknown[]): unknown;
  /** @@last_gtid as reported by the last statement that changed it; cleared before each tracked transaction. */
  reportedLastGtid?: string;
  /** Set once the server accepted to track last_gtid for this session. */
  tracksLastGtid?: boolean;
}

const TRACK_SQL =
  "SET SESSION session_track_system_variables = CONCAT_WS(',', @@session_track_system_variables, 'last_gtid')";

function track(connection: TrackedConnection): void {
  if (connection.tracksLastGtid !== undefined) return;
  connection.tracksLastGtid = false;
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: Error | null, result: unknown, ...rest: unknown[]) => {
        const changed = (result as { stateChanges?: { systemVariables?: Record<string, string> } } | undefined)
          ?.stateChanges?.systemVariables?.last_gtid;
        if (changed !== undefined) connection.reportedLastGtid = changed;
        return (callback as (...values: unknown[]) => unknown)(error, result, ...rest);
      };
    }
    return query(...args);
  };
  // Queued before any statement of the session's first borrower (mysql2 runs a connection's
  // commands in order). A server that cannot track it (MySQL, an old MariaDB) refuses the SET:
  // the connection then reads @@last_gtid with a statement after each commit.
  connection.query(TRACK_SQL, (error: Error | null) => {
    connection.tracksLastGtid = error === null;
  });
}

/** Makes every connection of the DataSource's primary pool, present and future, report @@last_gtid. */
export function trackCommitPositions(dataSource: DataSource): void {
  const pool = mysqlPoolOf(dataSource);
  if (!pool) return;
  pool.on("connection", track);
  for (const connection of poolConnections(pool)) track(connection);
}

const connectionOf = (runner: QueryRunner) =>
  runnerInternalsOf(runner).databaseConnection as TrackedConnection | undefined;

/** Before a transaction on `runner` (connected): forget what an earlier request's commit reported. */
export function clearReportedPosition(runner: QueryRunner): void {
  const connection = connectionOf(runner);
  if (connection) connection.reportedLastGtid = undefined;
}

/**
 * After the COMMIT on `runner`: the position it reported ("" when the transaction wrote nothing),
 * or undefined when this connection does not report it (then read it with a statement).
 */
export function reportedCommitPosition(runner: QueryRunner): string | undefined {
  const connection = connectionOf(runner);
  if (!connection?.tracksLastGtid) return undefined;
  return connection.reportedLastGtid ?? "";
}
