import type { DataSource, EntityManager, QueryRunner } from "typeorm";
import { SNAPSHOT_START } from "../db/replicas";

/** A consistent read on one pooled connection, ended by `end` (which also returns the connection). */
export interface ReadSnapshot {
  em: EntityManager;
  end(): Promise<void>;
}

/**
 * Starts a read-only transaction with a consistent snapshot on one pooled MySQL/MariaDB
 * connection: every statement issued through `em` sees the database as it was at the start,
 * whatever commits meanwhile. Two statements in all (START TRANSACTION and COMMIT). On `runner`
 * when given (a replica's connection, src/db/replicas.ts), else on a primary connection.
 */
export async function startReadSnapshot(dataSource: DataSource, on?: QueryRunner): Promise<ReadSnapshot> {
  const runner = on ?? dataSource.createQueryRunner();
  try {
    // On a replica that went away just now, the lease's runner opens it on the primary instead.
    await runner.query(SNAPSHOT_START);
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
