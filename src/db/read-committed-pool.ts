import type { DataSource, EntityManager } from "typeorm";
import {
  mysqlDriverOf,
  poolConnections,
  runnerInternalsOf,
  type Mysql2Pool,
  type PooledConnection,
} from "./driver-internals";

/** The session setting of every connection of a ReadCommittedPool. */
export const READ_COMMITTED_SESSION_SQL = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";

/**
 * Connections whose session runs at READ COMMITTED, for the units of work that ask for it
 * (`inTransaction`'s `readCommitted`: the feed's placing, run about every FEED_PASS_INTERVAL_MS
 * under a write load). On the primary's pool a transaction at READ COMMITTED costs a
 * `SET TRANSACTION ISOLATION LEVEL` before each `START TRANSACTION`, since the next transaction
 * on that connection may be a write that needs REPEATABLE READ; here the level is set once when
 * the connection opens, as the pool sets the statement limit, and each transaction is only its
 * `START TRANSACTION`. A pool of its own, of one connection: the placings take no connection
 * from the requests' pool and wait on nothing but each other. The same guarded mysql2 pool as the
 * primary's (statement limit, lost sessions destroyed, bounded acquire), opened on first use.
 * MySQL/MariaDB only; the owner (the runtime) ends it with `close`.
 */
export class ReadCommittedPool {
  private pool: Mysql2Pool | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /** Runs `body` in one transaction on a READ COMMITTED session. */
  async transaction<T>(body: (em: EntityManager) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    const runner = this.dataSource.createQueryRunner();
    runnerInternalsOf(runner).databaseConnection = mysqlDriverOf(this.dataSource).prepareDbConnection(connection);
    try {
      return await runner.manager.transaction(body);
    } finally {
      await runner.release();
    }
  }

  /**
   * Closes the sessions, after their users stopped. Dropped rather than ended: a clean end waits
   * for the server's answer, which a frozen or lost server never sends (a shutdown in a fault).
   */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (!pool) return;
    for (const connection of poolConnections(pool)) connection.destroy();
    await new Promise<void>((done) => pool.end(() => done()));
  }

  private acquire(): Promise<PooledConnection> {
    const pool = (this.pool ??= this.createPool());
    return new Promise((resolve, reject) =>
      pool.getConnection((error, connection) => (error || !connection ? reject(error) : resolve(connection))),
    );
  }

  private createPool(): Mysql2Pool {
    const driver = mysqlDriverOf(this.dataSource);
    const options = { ...driver.createConnectionOptions(driver.options, driver.options), connectionLimit: 1 };
    const pool = driver.mysql.createPool(options);
    pool.on("connection", (connection) => {
      // Queued behind the pool's own session settings, before the first statement of a caller.
      // A session that cannot run at READ COMMITTED serves nothing: what is queued fails as on a
      // lost connection, and the unit of work runs again on a new one.
      connection.query(READ_COMMITTED_SESSION_SQL, (error: Error | null) => {
        if (error) connection.destroy();
      });
    });
    return pool;
  }
}
