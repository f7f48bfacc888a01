/**
 * Driver errors that say "the database cannot serve this now" rather than "this request is
 * wrong". All answer 503 SERVICE_UNAVAILABLE with Retry-After, never 500, each with its own
 * message: a statement stopped at the statement timeout says that the query took too long, since
 * the same request on an idle server may take as long (a search of a million registrants).
 */
export type DatabaseFailure = "unavailable" | "overloaded" | "too_slow";

// Unreachable, closed or gone: network failures, a closed pool or DataSource (TypeORM, mysql2),
// a client-side query timeout on a frozen server, a closed or unopenable SQLite file, a server
// shutting down, a dropped database, a Galera node that is leaving or is cut off from the
// majority (1047 "WSREP has not yet prepared node for application use"; MySQL's own 1047,
// "Unknown command", is a protocol error no request of ours can cause).
const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|PROTOCOL_CONNECTION_LOST|PROTOCOL_SEQUENCE_TIMEOUT|ETIMEDOUT|Pool is closed|Connection lost|Can't add new command when connection is in closed state|ER_SERVER_SHUTDOWN|ER_UNKNOWN_COM_ERROR|WSREP has not yet prepared node|ER_BAD_DB_ERROR|Connection is not established|database connection is not open|SQLITE_CANTOPEN|SQLITE_IOERR|DB_ACQUIRE_TIMEOUT/;

// Reachable but saturated: a request would wait past the acquire timeout or the pool's wait queue is full, the server is out of connections, a
// lock wait timed out or a deadlock still lost after inTransaction's reruns
// (src/db/transaction-conflicts.ts), SQLite busy.
const OVERLOADED =
  /Queue limit reached|DB_WAIT_TOO_LONG|ER_CON_COUNT_ERROR|ER_TOO_MANY_USER_CONNECTIONS|ER_LOCK_WAIT_TIMEOUT|ER_LOCK_DEADLOCK|SQLITE_BUSY/;

// A statement the server stopped at max_statement_time (MariaDB, 1969) / MAX_EXECUTION_TIME
// (MySQL, 3024): DATABASE_QUERY_TIMEOUT_MS, set per session by src/db/pool-guard.ts.
const TOO_SLOW =
  /ER_STATEMENT_TIMEOUT|ER_QUERY_TIMEOUT|max_statement_time exceeded|maximum statement execution time exceeded/;

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [
    error.message,
    (error as { code?: unknown }).code,
    (error as { driverError?: { code?: unknown; message?: unknown } }).driverError?.code,
  ];
  const cause = (error as { driverError?: { message?: unknown } }).driverError?.message;
  if (cause) parts.push(cause);
  // mysql2 reports a refused connection to every resolved address as an AggregateError with an empty message.
  if (error instanceof AggregateError) parts.push(...error.errors.map((inner: unknown) => describe(inner)));
  return parts.filter((part) => part !== undefined && part !== "").join(" ");
}

/** The kind of database trouble an error shows, or null when it is something else. */
export function databaseFailureOf(error: unknown): DatabaseFailure | null {
  const text = describe(error);
  if (TOO_SLOW.test(text)) return "too_slow";
  if (OVERLOADED.test(text)) return "overloaded";
  if (UNAVAILABLE.test(text)) return "unavailable";
  return null;
}

export const DATABASE_FAILURE_MESSAGES: Record<DatabaseFailure, string> = {
  unavailable: "The database is unavailable; try again shortly.",
  overloaded: "The service is overloaded; try again shortly.",
  too_slow:
    "The query took too long: the database stopped it at the statement timeout. Ask for less (a narrower filter, a longer search word, a smaller page) or try again later.",
};

/** One line for the console: the cause of a failure to connect, without a stack. */
export function connectionFailureCause(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return connectionFailureCause(error.errors[0]);
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message = error.message.split("\n")[0].trim();
  if (typeof code === "string" && code !== "" && !message.includes(code)) return message ? `${code}: ${message}` : code;
  return message || error.name;
}
