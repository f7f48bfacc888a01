import { EntityManager, QueryFailedError, type EntitySubscriberInterface } from "typeorm";
import { failoverReplicaRead } from "./replicas";
import { sessionLostOf } from "./transaction-conflicts";
import { mysqlDriverOf, runnerInternalsOf, type MysqlDriverInternals, type PooledConnection } from "./driver-internals";

// `em.query` outside a transaction makes a query runner per statement and passes through about
// ten promises (the runner's connect, the subscriber broadcasts before and after, its release,
// mysql2's promise wrapper), which cost a cheap read more CPU than its SQL. For a read outside a
// transaction on MySQL/MariaDB this runs the same statement the way TypeORM's MysqlQueryRunner
// does (same pooled connection and error handler, client-side timeout, logger calls, failure
// wrapped in QueryFailedError) without the rest; inside a transaction or read snapshot it runs on
// the connection the transaction holds. On SQLite, with an entity subscriber that listens to
// statements (beforeQuery/afterQuery, the broadcasts em.query sends) or through a wrapped manager
// it is em.query. A subscriber of transaction events alone (the runtime's commit signal,
// commit-signal.ts) receives nothing from a statement outside a transaction, so it keeps this path.

/** Rows of one statement, as `em.query` returns them. */
export async function queryPooled(em: EntityManager, sql: string, parameters: unknown[]): Promise<unknown> {
  const dataSource = em.connection;
  const type = dataSource.options.type;
  const driver = mysqlDriverOf(dataSource);
  if (
    (type !== "mysql" && type !== "mariadb") ||
    dataSource.subscribers.some(listensToStatements) ||
    !driver.pool ||
    // A manager whose query is not TypeORM's own (a wrapper, a test double) keeps its own.
    em.query !== EntityManager.prototype.query
  )
    return em.query(sql, parameters);
  if (em.queryRunner) {
    // Inside a transaction (or a read snapshot) the statement goes on the runner's connection,
    // which its BEGIN has already taken; before that, or once released, the runner decides.
    const runner = runnerInternalsOf(em.queryRunner);
    if (runner.isReleased || !runner.databaseConnection) return em.query(sql, parameters);
    const connection = runner.databaseConnection;
    try {
      return await runOn(connection, dataSource, driver, sql, parameters);
    } catch (error) {
      // A read on a replica that went away continues on the primary (src/db/replicas.ts).
      if (!(await failoverReplicaRead(em.queryRunner, error, connection))) throw error;
      return runOn(runner.databaseConnection, dataSource, driver, sql, parameters);
    }
  }
  try {
    return await onPooledConnection(dataSource, driver, sql, parameters);
  } catch (error) {
    // A read whose session was lost under it (a Galera node killed, a connection reset) wrote
    // nothing: it runs once more on a new connection, which HAProxy opens to a node that serves.
    // Anything else outside a transaction may have been applied, so it is not repeated.
    if (!READ.test(sql) || !sessionLostOf(error)) throw error;
    return onPooledConnection(dataSource, driver, sql, parameters);
  }
}

/** A subscriber that em.query's broadcasts would reach for a statement outside a transaction. */
const listensToStatements = (subscriber: EntitySubscriberInterface): boolean =>
  typeof subscriber.beforeQuery === "function" || typeof subscriber.afterQuery === "function";

/** A statement that only reads: SELECT or WITH … SELECT (no locking clause outside a transaction). */
const READ = /^\s*(SELECT|WITH)\b/i;

async function onPooledConnection(
  dataSource: EntityManager["connection"],
  driver: MysqlDriverInternals,
  sql: string,
  parameters: unknown[],
): Promise<unknown> {
  const connection = await driver.obtainMasterConnection();
  try {
    return await runOn(connection, dataSource, driver, sql, parameters);
  } finally {
    connection.release();
  }
}

// What MysqlQueryRunner.query does for one statement, without its promise chain.
async function runOn(
  connection: PooledConnection,
  dataSource: EntityManager["connection"],
  driver: MysqlDriverInternals,
  sql: string,
  parameters: unknown[],
): Promise<unknown> {
  const logger = dataSource.logger;
  logger.logQuery(sql, parameters);
  const maxTime = driver.options.maxQueryExecutionTime;
  const payload = driver.options.enableQueryTimeout && maxTime ? { sql, timeout: maxTime } : sql;
  const started = Date.now();
  try {
    const rows = await new Promise<unknown>((resolve, reject) =>
      connection.query(payload, parameters, (error: Error | null, result?: unknown) =>
        error ? reject(error) : resolve(result),
      ),
    );
    const took = Date.now() - started;
    if (maxTime && took > maxTime) logger.logQuerySlow(took, sql, parameters);
    return rows;
  } catch (error) {
    const took = Date.now() - started;
    if (maxTime && took > maxTime) logger.logQuerySlow(took, sql, parameters);
    logger.logQueryError(error as Error, sql, parameters);
    throw new QueryFailedError(sql, parameters, error as Error);
  }
}
