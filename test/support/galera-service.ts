import { DataSource } from "typeorm";
import { buildDataSourceOptions, DEFAULT_DATABASE_CONNECTION } from "../../src/db/data-source-options";
import type { MysqlFamilyConfig } from "./database";
import type { GaleraNode } from "./galera-cluster";

// The service's own pieces on a private Galera cluster (test/scale/galera-*.test.ts): a
// DataSource built exactly as the service builds its one (pool guard, timeouts, wsrep_sync_wait),
// pointed at one node or at HAProxy.

/** How the service would be configured to reach `port` (a node, or HAProxy in front of them). */
export const galeraDatabase = (port: number, database: string): MysqlFamilyConfig => ({
  kind: "mariadb",
  host: "127.0.0.1",
  port,
  user: "root",
  password: "",
  database,
});

/** A DataSource with the service's options; `wsrepSyncWait` as DATABASE_WSREP_SYNC_WAIT would set it. */
export async function openGaleraDataSource(
  port: number,
  database: string,
  options: { wsrepSyncWait?: number | null; poolSize?: number } = {},
): Promise<DataSource> {
  const dataSource = new DataSource(
    buildDataSourceOptions(galeraDatabase(port, database), {
      connection: {
        ...DEFAULT_DATABASE_CONNECTION,
        poolSize: options.poolSize ?? DEFAULT_DATABASE_CONNECTION.poolSize,
        wsrepSyncWait: options.wsrepSyncWait ?? null,
      },
    }),
  );
  await dataSource.initialize();
  return dataSource;
}

/** Creates an empty database on `node` (Galera replicates the statement to every node). */
export async function createGaleraDatabase(node: GaleraNode, database: string): Promise<void> {
  await node.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await node.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
}
