import type { QueryRunner } from "typeorm";

/**
 * @@last_gtid of the connection `runner` holds: the GTID of the last transaction that connection
 * wrote (MariaDB), "" when it has written none. Read right after a COMMIT, it is that commit's.
 */
export async function readLastCommitPosition(runner: QueryRunner): Promise<string> {
  const [row] = (await runner.query("SELECT @@last_gtid AS position")) as { position?: unknown }[];
  return String(row?.position ?? "");
}
