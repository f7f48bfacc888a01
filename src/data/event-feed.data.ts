import type { EntityManager } from "typeorm";
import { executeWrite } from "../db/insert-rows";
import { sqlDate } from "./events.data";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

// SQL of the pull event feed (docs/event-feed.md). Events join the feed after their commit, when
// the feed sequencer (src/runtime/feed-sequencer.ts) or, for one it has not reached, the delivery
// worker's fan-out places them: positions come from the one `event_feed` row, whose lock the
// placing transaction holds to its COMMIT, so positions become visible in increasing order
// whatever order the events' own transactions committed in. A page is a keyset read on
// (organization_id | group_id, feed_position).

const skipLocked = (em: EntityManager) =>
  em.connection.options.type === "better-sqlite3" ? "" : " FOR UPDATE SKIP LOCKED";
const byPrimaryKey = (em: EntityManager) =>
  em.connection.options.type === "better-sqlite3" ? "" : " FORCE INDEX (PRIMARY)";

/**
 * Locks up to `limit` committed events not yet in the feed, oldest first. SKIP LOCKED: events of
 * a transaction still open, or claimed by another sequencer or a fan-out, are left to their owner
 * (the one holding an event's row lock places it).
 */
export async function claimUnplacedEvents(em: EntityManager, limit: number): Promise<number[]> {
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM event WHERE feed_position IS NULL ORDER BY id LIMIT ${Math.max(0, Math.trunc(limit))}${skipLocked(em)}`,
  );
  return rows.map((row) => row.id);
}

/** Whether a committed event waits for its feed position: the sequencer's one-statement look when idle. */
export async function anyUnplacedEvent(em: EntityManager): Promise<boolean> {
  const rows = await selectRows(em, { id: "int" }, `SELECT id FROM event WHERE feed_position IS NULL LIMIT 1`);
  return rows.length > 0;
}

/**
 * Hands out the next `count` feed positions, under the `event_feed` row's lock (held to COMMIT;
 * on Galera a concurrent placing on another node fails certification and is run again). Returns
 * the first of them. The row is created on first use (SQLite schemas are synchronized, not migrated).
 */
export async function takeFeedPositions(em: EntityManager, count: number): Promise<number> {
  const mysql = em.connection.options.type !== "better-sqlite3";
  // The bump's own answer carries the new value, so no SELECT follows it: on MySQL/MariaDB through
  // LAST_INSERT_ID(expr), on SQLite through RETURNING. null: the row does not exist yet.
  const bump = async (): Promise<number | null> => {
    if (mysql) {
      const bumped = await executeWrite(
        em,
        `UPDATE event_feed SET last_position = LAST_INSERT_ID(last_position + ?) WHERE id = 1`,
        [count],
      );
      return bumped.affected === 0 ? null : bumped.insertId;
    }
    const [row] = await selectRows(
      em,
      { last_position: "int" },
      `UPDATE event_feed SET last_position = last_position + ? WHERE id = 1 RETURNING last_position`,
      [count],
    );
    return row ? row.last_position : null;
  };
  let last = await bump();
  if (last === null) {
    // A concurrent first use inserts the same row: the loser's duplicate key rolls its placing back, to be run again.
    await em.query(`INSERT INTO event_feed (id, last_position, pruned_through) VALUES (1, 0, 0)`);
    last = (await bump())!;
  }
  return last - count + 1;
}

/**
 * Gives `placed` (in this order) their feed positions from `first` on, in one UPDATE. The fan-out
 * marks the events it claimed dispatched in the same statement (`dispatched`: all of them, placed
 * or placed before). The events are found by primary key, never by a scan: on a small table
 * MariaDB would scan, and wait on the row of an event whose write is still open, while that
 * write's next event waits for the gap the claim locked (docs/locking.md).
 */
export async function placeEventsInFeed(
  em: EntityManager,
  placed: readonly number[],
  first: number,
  dispatched: { eventIds: readonly number[]; at: Date } | null = null,
): Promise<void> {
  const ids = dispatched ? dispatched.eventIds : placed;
  if (ids.length === 0) return;
  const positions =
    placed.length === 0
      ? null
      : `feed_position = CASE id ${placed.map(() => "WHEN ? THEN ?").join(" ")} ELSE feed_position END`;
  const sets = [dispatched ? "dispatched_at = ?" : null, positions].filter((set) => set !== null).join(", ");
  if (sets === "") return;
  await em.query(`UPDATE event${byPrimaryKey(em)} SET ${sets} WHERE id IN (${sqlPlaceholders(ids.length)})`, [
    ...(dispatched ? [sqlDate(em, dispatched.at)] : []),
    ...placed.flatMap((id, i) => [id, first + i]),
    ...ids,
  ]);
}

/** The highest feed position pruned (0 when none): a cursor below it may have lost events. */
export async function readPrunedThrough(em: EntityManager): Promise<number> {
  const [row] = await selectRows(em, { pruned_through: "int" }, `SELECT pruned_through FROM event_feed WHERE id = 1`);
  return row?.pruned_through ?? 0;
}

const FEED_ROW = {
  feed_position: "int",
  public_id: "text",
  type: "text",
  group_id: "int",
  data: "text",
  actor: "textOrNull",
  created_at: "date",
} as const;
/** The columns of FEED_ROW, in the order both feed reads select them. */
const FEED_COLUMNS = Object.keys(FEED_ROW).join(", ");

export interface FeedEventRow {
  position: number;
  publicId: string;
  type: string;
  groupId: number;
  /** JSON text of `data`, as delivered. */
  data: string;
  /** JSON text of `actor`; null for events recorded before actors were. */
  actor: string | null;
  createdAt: Date;
}

const feedEventOf = (row: RowOf<typeof FEED_ROW>): FeedEventRow => ({
  position: row.feed_position,
  publicId: row.public_id,
  type: row.type,
  groupId: row.group_id,
  data: row.data,
  actor: row.actor,
  createdAt: row.created_at,
});

export interface FeedPageQuery {
  organizationId: number;
  /** These projects of the organization (one: its own index); null: all of them. */
  groupIds: readonly number[] | null;
  afterPosition: number;
  /** Only these types; null: every type. */
  types: readonly string[] | null;
  limit: number;
}

/**
 * Up to `limit` events of the organization (or one project) after a position, in feed order. The
 * keyset seeks its index: the cost of a page does not depend on how far the feed goes. A `types`
 * filter is applied to the index range, so a rare type reads past the others to fill its page.
 */
export async function readFeedPage(em: EntityManager, query: FeedPageQuery): Promise<FeedEventRow[]> {
  const groups = query.groupIds;
  if (groups !== null && groups.length === 0) return [];
  const scope =
    groups === null ? "organization_id = ?" : `organization_id = ? AND group_id IN (${sqlPlaceholders(groups.length)})`;
  const parameters: unknown[] = [query.organizationId, ...(groups ?? [])];
  parameters.push(query.afterPosition);
  let types = "";
  if (query.types !== null) {
    types = ` AND type IN (${sqlPlaceholders(query.types.length)})`;
    parameters.push(...query.types);
  }
  const index =
    em.connection.options.type === "better-sqlite3"
      ? ""
      : `FORCE INDEX (${groups?.length === 1 ? "IDX_event_feed_group" : "IDX_event_feed_org"})`;
  const rows = await selectRows(
    em,
    FEED_ROW,
    `SELECT ${FEED_COLUMNS} FROM event ${index}
      WHERE ${scope} AND feed_position > ?${types}
      ORDER BY feed_position LIMIT ${Math.max(0, Math.trunc(query.limit))}`,
    parameters,
  );
  return rows.map(feedEventOf);
}

/**
 * Deletes up to `limit` events fanned out before `olderThan` whose deliveries are all finished
 * (their deliveries and attempts go with them), oldest first, and raises `pruned_through` to the
 * highest position deleted. Returns how many events it deleted.
 */
export async function pruneEvents(em: EntityManager, olderThan: Date, limit: number): Promise<number> {
  const rows = await selectRows(
    em,
    { id: "int", feed_position: "int" },
    `SELECT e.id, e.feed_position FROM event e
      WHERE e.created_at < ? AND e.feed_position IS NOT NULL AND e.dispatched_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.event_id = e.id AND d.state = 'pending')
      ORDER BY e.created_at LIMIT ${Math.max(0, Math.trunc(limit))}`,
    [sqlDate(em, olderThan)],
  );
  if (rows.length === 0) return 0;
  // Their deliveries and attempts go with them (ON DELETE CASCADE; SQLite enforces foreign keys too).
  const ids = rows.map((row) => row.id);
  await em.query(`DELETE FROM event WHERE id IN (${sqlPlaceholders(ids.length)})`, ids);
  const highest = Math.max(...rows.map((row) => row.feed_position));
  await em.query(`UPDATE event_feed SET pruned_through = ? WHERE id = 1 AND pruned_through < ?`, [highest, highest]);
  return rows.length;
}

/** The highest feed position of a committed event (0 when none): where live subscriptions start. */
export async function readLastFeedPosition(em: EntityManager): Promise<number> {
  const [row] = await selectRows(
    em,
    { last: "intOrNull" },
    `SELECT MAX(feed_position) AS last FROM event WHERE feed_position IS NOT NULL`,
  );
  return row?.last ?? 0;
}

/**
 * Up to `limit` events of any of `groupIds` after a position, in feed order, whatever their
 * organization: what the live subscriptions of one instance wait for (src/domain/events/live-events.ts).
 * Seeks the unique index on feed_position; the projects only filter the rows it passes.
 */
export async function readLiveFeed(
  em: EntityManager,
  query: { afterPosition: number; groupIds: readonly number[]; limit: number },
): Promise<FeedEventRow[]> {
  if (query.groupIds.length === 0) return [];
  const rows = await selectRows(
    em,
    FEED_ROW,
    `SELECT ${FEED_COLUMNS} FROM event
      WHERE feed_position > ? AND group_id IN (${sqlPlaceholders(query.groupIds.length)})
      ORDER BY feed_position LIMIT ${Math.max(0, Math.trunc(query.limit))}`,
    [query.afterPosition, ...query.groupIds],
  );
  return rows.map(feedEventOf);
}
