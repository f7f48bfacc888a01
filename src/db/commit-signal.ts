import type { DataSource, EntityManager, EntitySubscriberInterface } from "typeorm";

// A signal, after COMMIT, that a transaction wrote events: what wakes the feed sequencer at once
// instead of at its next poll. The mark rides on the transaction's query runner (TypeORM's `data`,
// kept for subscribers), and TypeORM calls `afterTransactionCommit` once the COMMIT has answered,
// so nothing is signalled for a transaction rolled back or still open. A signal is a hint: a
// missed one costs latency (the sequencer's poll finds the events), never an event.

const EVENTS_WRITTEN = "regapi.eventsWritten";

/** Marks `em`'s transaction as one that wrote events (a manager outside a transaction: nothing to mark). */
export function noteEventsWritten(em: EntityManager): void {
  const data = em.queryRunner?.data as Record<string, unknown> | undefined;
  if (data) data[EVENTS_WRITTEN] = true;
}

/** Calls `listener` after each COMMIT on `dataSource` of a transaction that wrote events; returns the unsubscribe. */
export function onCommitWithEvents(dataSource: DataSource, listener: () => void): () => void {
  const take = (data: Record<string, unknown> | undefined): boolean => {
    if (!data?.[EVENTS_WRITTEN]) return false;
    delete data[EVENTS_WRITTEN];
    return true;
  };
  const subscriber: EntitySubscriberInterface = {
    afterTransactionCommit(event) {
      if (take(event.queryRunner.data as Record<string, unknown> | undefined)) listener();
    },
    afterTransactionRollback(event) {
      take(event.queryRunner.data as Record<string, unknown> | undefined);
    },
  };
  dataSource.subscribers.push(subscriber);
  return () => {
    const at = dataSource.subscribers.indexOf(subscriber);
    if (at >= 0) dataSource.subscribers.splice(at, 1);
  };
}
