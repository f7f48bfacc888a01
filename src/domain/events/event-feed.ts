import { z } from "zod";
import { clientValue } from "../../common/client-value";
import {
  anyUnplacedEvent,
  claimUnplacedEvents,
  placeEventsInFeed,
  readFeedPage,
  readPrunedThrough,
  takeFeedPositions,
} from "../../data/event-feed.data";
import { optionalIntegerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import type { RequestContext } from "../context";
import { cursorExpired } from "../errors";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { EVENT_TYPES, type EventType } from "./record-event";

// The pull event feed (docs/event-feed.md): the events webhooks deliver, read in order with a
// cursor, by REST (events `list`) and GraphQL (`events`). Same ids and bodies as deliveries, so a
// consumer may take both and deduplicate by id. Events join the feed just after their commit,
// placed by the feed sequencer of the instance that wrote them (src/runtime/feed-sequencer.ts;
// src/data/event-feed.data.ts says why after the commit, not in the write).

export const FEED_PAGE_MAX = 500;
/** Events placed in the feed per transaction: a full batch is followed by the next one at once. */
export const FEED_PLACE_BATCH = 500;

/**
 * Places committed events that have no feed position yet, oldest first, up to `limit`: the feed
 * sequencer's unit of work. Returns how many it placed and the last position it gave (0: none).
 * At READ COMMITTED: the claim scans to the end of the unplaced events, where every write inserts
 * its new event, and at REPEATABLE READ its gap lock would make that INSERT (the writer holding its
 * registration's lock meanwhile) wait for this COMMIT (docs/locking.md).
 */
export async function placeCommittedEvents(
  ctx: RequestContext,
  limit = FEED_PLACE_BATCH,
): Promise<{ placed: number; lastPosition: number }> {
  return inTransaction(
    ctx,
    "events.place_in_feed",
    async ({ em }) => {
      const ids = await claimUnplacedEvents(em, limit);
      if (ids.length === 0) return { placed: 0, lastPosition: 0 };
      const first = await takeFeedPositions(em, ids.length);
      await placeEventsInFeed(em, ids, first);
      return { placed: ids.length, lastPosition: first + ids.length - 1 };
    },
    { readCommitted: true },
  );
}

/** Whether a committed event waits for its feed position (one statement, no transaction). */
export const eventsAwaitFeed = (ctx: RequestContext): Promise<boolean> => anyUnplacedEvent(ctx.em);
export const FEED_PAGE_DEFAULT = 100;

const CURSOR_PREFIX = "feed:";

/** The opaque cursor of a feed position (0: before the first event). */
export const encodeFeedCursor = (position: number): string =>
  Buffer.from(`${CURSOR_PREFIX}${position}`, "utf8").toString("base64url");

function decodeFeedCursor(cursor: string): number | null {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const position = decoded.startsWith(CURSOR_PREFIX) ? Number(decoded.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(position) || position < 0 || encodeFeedCursor(position) !== cursor) return null;
  return position;
}

const cursor = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null || value === "") return 0;
    const position = typeof value === "string" ? decodeFeedCursor(value) : null;
    if (position === null) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "INVALID_ID" },
        message: `is not a feed cursor returned by this API (an endCursor / end_cursor), got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return position;
  })
  .meta({ type: ["string", "null"], description: "A cursor from a previous page; absent: the oldest event kept." });

const types = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return null;
    if (!Array.isArray(value) || value.length === 0) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "TOO_FEW_ITEMS" },
        message: "must be a non-empty list of event types",
      });
      return z.NEVER;
    }
    const unknown = value.filter((type) => !(EVENT_TYPES as readonly unknown[]).includes(type));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "NOT_ALLOWED" },
        message: `names unknown event types ${unknown.map((type) => clientValue(type)).join(", ")}; known: ${EVENT_TYPES.join(", ")}`,
      });
      return z.NEVER;
    }
    return [...new Set(value as string[])];
  })
  .meta({ type: ["array", "null"], items: { enum: [...EVENT_TYPES] }, description: "Only these event types." });

const limit = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return FEED_PAGE_DEFAULT;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > FEED_PAGE_MAX) {
      ctx.addIssue({
        code: "custom",
        params: { reason: "OUT_OF_RANGE" },
        message: `must be an integer from 1 to ${FEED_PAGE_MAX}, got ${clientValue(value)}`,
      });
      return z.NEVER;
    }
    return value;
  })
  .meta({ type: ["integer", "null"], minimum: 1, maximum: FEED_PAGE_MAX, default: FEED_PAGE_DEFAULT });

export const EventFeedCommand = z.object({
  /** One project of the organization; absent: every project. */
  groupId: optionalIntegerId,
  after: cursor,
  types,
  limit,
});
export type EventFeedCommand = z.output<typeof EventFeedCommand>;

/** An event as the feed and webhook deliveries carry it (wire names). */
export interface FeedEvent {
  id: string;
  type: EventType;
  created_at: string;
  group_id: number;
  actor: Record<string, unknown> | null;
  data: Record<string, unknown>;
  /** The cursor that continues after this event. */
  cursor: string;
}

export interface FeedPage {
  events: FeedEvent[];
  /** Continue after the page's last event; the cursor given (or the start) when the page is empty. */
  endCursor: string;
  hasNextPage: boolean;
}

export const CURSOR_EXPIRED_MESSAGE =
  "The cursor is older than the event feed keeps: events after it have been pruned (EVENT_RETENTION_DAYS). Resync: read the current state (users get_user_list, GraphQL users), then read the feed again without a cursor.";

/**
 * One page of the caller's organization's events (or one project's) after a cursor, oldest first.
 * Throws VALIDATION_FAILED (members), FORBIDDEN (a project not the organization's) or
 * CURSOR_EXPIRED (events after the cursor were pruned).
 */
export async function listEvents(ctx: RequestContext, draft: CommandDraft<typeof EventFeedCommand>): Promise<FeedPage> {
  const command = parseCommand(EventFeedCommand, draft);
  // A read: a key needs `read` and, for one project, that project; a key limited to projects
  // reads the events of those projects only.
  const { organizationId, scope } = authorize(
    ctx,
    "read",
    command.groupId !== null ? { groupId: command.groupId } : "projects-in-scope",
  );
  const groupIds = command.groupId !== null ? [command.groupId] : (scope?.groupIds ?? null);
  return inTransaction(ctx, "events.list", async (tx) => {
    if (command.groupId !== null) await resolveOwnedProject(tx, command.groupId, tx.em);
    // A cursor at 0 (the start) is never expired: it asks for the oldest event kept.
    if (command.after > 0 && command.after < (await readPrunedThrough(tx.em)))
      throw cursorExpired(CURSOR_EXPIRED_MESSAGE);
    const rows = await readFeedPage(tx.em, {
      organizationId,
      groupIds,
      afterPosition: command.after,
      types: command.types,
      limit: command.limit + 1,
    });
    const page = rows.slice(0, command.limit);
    const events = page.map((row) => ({
      id: row.publicId,
      type: row.type as EventType,
      created_at: row.createdAt.toISOString(),
      group_id: row.groupId,
      actor: row.actor === null ? null : (JSON.parse(row.actor) as Record<string, unknown>),
      data: JSON.parse(row.data) as Record<string, unknown>,
      cursor: encodeFeedCursor(row.position),
    }));
    return {
      events,
      endCursor: events.length > 0 ? events[events.length - 1].cursor : encodeFeedCursor(command.after),
      hasNextPage: rows.length > command.limit,
    };
  });
}
