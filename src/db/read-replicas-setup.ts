import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import { memoryReadPositions, redisReadPositions } from "./read-positions";
import { startReplicaSet, type ReplicaSet } from "./replicas";
import { throttled, type SharedRedis } from "../shared-state/redis";

// A principal's write position lives this long: far beyond any lag a replica in the rotation may
// have (REPLICA_MAX_LAG_S), so a read after it never needs it.
const positionTtlMs = (config: Config) => (config.replicas.maxLagSeconds + 300) * 1000;

/** The two levels this module logs at; the app's logger (src/http/logger.ts) fits, and src/db stays below it. */
interface ReplicaLogger {
  info(entry: object, message: string): void;
  warn(entry: object, message: string): void;
}

/**
 * Why replicas cannot be used with the primary whose `SELECT VERSION()` is `version`, or null when
 * they can. Read-your-writes rests on MariaDB's GTIDs (@@last_gtid, MASTER_GTID_WAIT, SHOW ALL
 * SLAVES STATUS); MySQL names them differently (executed GTID sets, WAIT_FOR_EXECUTED_GTID_SET),
 * and reading @@last_gtid there would fail a write after its COMMIT. Refused at start instead.
 */
export function replicasUnsupportedBy(version: string): string | null {
  if (/mariadb/i.test(version)) return null;
  return (
    `DATABASE_REPLICA_URLS needs a MariaDB primary with MariaDB GTID replicas; the primary is ${version.slice(0, 60)}, ` +
    "not MariaDB (MySQL replicas are not supported: unset DATABASE_REPLICA_URLS to read on the primary)"
  );
}

/** The primary cannot serve replicas (replicasUnsupportedBy): main exits with the message. */
export class ReplicaSetupError extends Error {}

/**
 * Starts routing lock-free reads over DATABASE_REPLICA_URLS (nothing without any). Write
 * positions are shared through Redis when REDIS_URL is set (every instance sees them), under
 * REDIS_KEY_PREFIX and a part naming the primary, so instances of another database on the same Redis never mix.
 */
export async function startReadReplicas(
  dataSource: DataSource,
  config: Config,
  logger: ReplicaLogger,
  redis: SharedRedis | null,
): Promise<ReplicaSet | undefined> {
  if (config.replicas.databases.length === 0 || config.database.kind === "sqlite") return undefined;
  const [{ version }] = (await dataSource.query("SELECT VERSION() AS version")) as { version: string }[];
  const unsupported = replicasUnsupportedBy(String(version));
  if (unsupported) throw new ReplicaSetupError(unsupported);
  const { host, port, database } = config.database;
  redis?.onError(
    throttled((error) =>
      logger.warn({ err: error.message }, "read-your-writes positions (Redis) unavailable; such reads use the primary"),
    ),
  );
  const positions = redis
    ? redisReadPositions(redis.commands, redis.key(`ryw:${host}:${port}/${database}:`), positionTtlMs(config))
    : memoryReadPositions(positionTtlMs(config));
  const set = await startReplicaSet(dataSource, config.database, config.replicas, positions, (replica, previous) => {
    const entry = { replica: replica.name, state: replica.state, previous, lagSeconds: replica.lagSeconds };
    if (replica.state === "up") logger.info(entry, "replica in the rotation");
    else logger.warn({ ...entry, error: replica.error }, "replica out of the rotation; its reads go elsewhere");
  });
  logger.info(
    {
      replicas: set?.report().map((r) => ({ name: r.name, state: r.state })),
      positions: redis ? "redis" : "memory",
    },
    "read replicas",
  );
  return set;
}
