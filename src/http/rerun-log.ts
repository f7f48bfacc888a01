import type { TransactionReruns } from "../db/transaction-conflicts";
import type { Logger } from "./logger";

/**
 * Logs every rerun counted in `reruns` at info: which action, what the database
 * said (1213 ER_LOCK_DEADLOCK, also a Galera certification failure; 1205 ER_LOCK_WAIT_TIMEOUT;
 * PROTOCOL_CONNECTION_LOST and the like for a session lost before COMMIT),
 * which run failed and how long until the next. A rerun is for a rare conflict (docs/locking.md):
 * a stream of these names the action whose locks need a look. Returns the unsubscribe.
 */
export function logTransactionReruns(reruns: TransactionReruns, logger: Logger): () => void {
  return reruns.onRerun((rerun) =>
    logger.info(
      {
        requestId: rerun.requestId,
        action: rerun.action,
        cause: rerun.cause,
        errno: rerun.errno,
        code: rerun.code,
        run: rerun.run,
        nextRunInMs: rerun.delayMs,
      },
      "transaction rerun",
    ),
  );
}
