import type { DataSource, EntityManager } from "typeorm";

/** A consistent read on one pooled connection, ended by `end` (which also returns the connection). */
export interface ReadSnapshot {
  em: EntityManager;
  end(): Promise<void>;
}

/**
 * Starts a read-only transaction with a consistent snapshot on one pooled MySQL/MariaDB
 * connection: every statement issued through `em` sees the database as it was at the start,
 * whatever commits meanwhile. Two statements in all (START TRANSACTION and COMMIT).
 */
export async function startReadSnapshot(dataSource: DataSource): Promise<ReadSnapshot> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
  } catch (error) {
    await runner.release();
    throw error;
  }
  return {
    em: runner.manager,
    async end() {
      try {
        await runner.query("COMMIT");
      } finally {
        await runner.release();
      }
    },
  };
}
