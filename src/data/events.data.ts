import type { EntityManager } from "typeorm";
import { noteEventsWritten } from "../db/commit-signal";

/** An event to record; its organization is the project's. */
export interface NewEventRow {
  publicId: string;
  groupId: number;
  type: string;
  /** JSON text of the event's `data`. */
  data: string;
  /** JSON text of the event's `actor` (who caused it). */
  actor: string;
  createdAt: Date;
}

/** A Date as a bound parameter of hand-written SQL: TypeORM's UTC text on SQLite, a Date for mysql2 (timezone Z). */
export function sqlDate(em: EntityManager, date: Date): Date | string {
  return em.connection.options.type === "better-sqlite3" ? date.toISOString().replace("T", " ").replace("Z", "") : date;
}

/**
 * Records events in one INSERT, in the caller's transaction, so they commit or roll back with the
 * change they describe. The organization is read from the project inside the same statement. The
 * transaction is marked, so its COMMIT wakes the feed sequencer (src/db/commit-signal.ts).
 */
export async function insertEvents(em: EntityManager, events: readonly NewEventRow[]): Promise<void> {
  if (events.length === 0) return;
  const tuple = `(?, (SELECT organization_id FROM project WHERE id = ?), ?, ?, ?, ?, ?)`;
  const parameters = events.flatMap((event) => [
    event.publicId,
    event.groupId,
    event.groupId,
    event.type,
    event.data,
    event.actor,
    sqlDate(em, event.createdAt),
  ]);
  await em.query(
    `INSERT INTO event (public_id, organization_id, group_id, type, data, actor, created_at)
     VALUES ${events.map(() => tuple).join(", ")}`,
    parameters,
  );
  noteEventsWritten(em);
}
