import { z } from "zod";
import type { FeedEventRow } from "../../data/event-feed.data";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import type { RequestContext } from "../context";
import { forbidden } from "../errors";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { requireOwnedRegistration } from "../users/registration-lookup";
import { encodeFeedCursor } from "./event-feed";
import { EVENT_TYPES, type EventType } from "./record-event";

// Live updates (GraphQL subscriptions over WebSocket, docs/graphql-clients.md#live-updates): the
// events of the pull feed, pushed. Who may subscribe to what, and what each subscriber sees of an
// event, is decided here; the instance's reader of the feed (src/runtime/live-events-hub.ts)
// hands each new event to dispatchLiveEvent. Why the feed and not a publish from the writer: a
// feed position exists only after the event's transaction committed and positions become visible
// in increasing order (event-feed.data.ts), so nothing is pushed before its commit, nothing is
// skipped, and every instance sees every write whichever instance made it.

/**
 * The events the subscriptions carry: every type of EVENT_KINDS, the rule that also stamps the
 * registration's updated_at (record-event.ts), so whatever `updatedSince` reports reaches them.
 */
const REGISTRATION_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** An event as a subscription delivers it: the feed's event, its registration and its feed cursor. */
export interface LiveEvent {
  eventId: string;
  type: EventType;
  createdAt: Date;
  groupId: number;
  cloginId: number;
  actor: Record<string, unknown> | null;
  data: Record<string, unknown>;
  /** The feed cursor after this event: read the pull feed from it to catch up after a disconnect. */
  cursor: string;
}

/** Which events one subscription receives, decided once by openLiveEvents. */
export interface LiveEventFilter {
  groupId: number;
  /** One registration; null: every registration of the project. */
  cloginId: number | null;
  /** A registrant session sees that its registration changed, not who changed what (below). */
  registrantView: boolean;
}

const RegistrationChangesCommand = z.object({ groupId: integerId });
const UserChangesCommand = z.object({ groupId: integerId, cloginId: integerId });

/**
 * The filter of `registrationChanged(groupId)`: an API account of the project's organization
 * whose key reads it. A registrant session is FORBIDDEN (it has no view of other registrants).
 */
export async function openRegistrationChanges(
  ctx: RequestContext,
  draft: CommandDraft<typeof RegistrationChangesCommand>,
): Promise<LiveEventFilter> {
  if (ctx.registrant) {
    throw forbidden(
      "registrationChanged is not available to a registrant session; subscribe to userChanged of your own registration.",
    );
  }
  const command = parseCommand(RegistrationChangesCommand, draft);
  authorize(ctx, "read", { groupId: command.groupId });
  await inTransaction(ctx, "events.subscribe_registrations", (tx) => resolveOwnedProject(tx, command.groupId, tx.em));
  return { groupId: command.groupId, cloginId: null, registrantView: false };
}

/**
 * The filter of `userChanged(groupId, cloginId)`: an API account as `user(groupId, cloginId)`
 * reads it (FORBIDDEN, USER_NOT_FOUND), or a registrant session for its own registration only.
 */
export async function openUserChanges(
  ctx: RequestContext,
  draft: CommandDraft<typeof UserChangesCommand>,
): Promise<LiveEventFilter> {
  const command = parseCommand(UserChangesCommand, draft);
  const registrant = ctx.registrant;
  if (registrant) {
    if (registrant.groupId !== command.groupId || registrant.cloginId !== command.cloginId) {
      throw forbidden(
        `A registrant session may subscribe to its own registration only (groupId ${registrant.groupId}, cloginId ${registrant.cloginId}).`,
      );
    }
    return { groupId: command.groupId, cloginId: command.cloginId, registrantView: true };
  }
  authorize(ctx, "read", { groupId: command.groupId });
  await inTransaction(ctx, "events.subscribe_user", (tx) =>
    requireOwnedRegistration(tx, tx.em, command.groupId, command.cloginId),
  );
  return { groupId: command.groupId, cloginId: command.cloginId, registrantView: false };
}

/** A subscriber as the dispatch sees it: what it wants, and where its events go (never waits). */
export interface LiveEventSink {
  readonly filter: LiveEventFilter;
  offer(event: LiveEvent): void;
}

/** Hands one event of the feed to the subscribers it matches, in the view each one is allowed. */
export function dispatchLiveEvent(row: FeedEventRow, sinks: Iterable<LiveEventSink>): void {
  if (!REGISTRATION_TYPES.has(row.type)) return;
  const data = JSON.parse(row.data) as Record<string, unknown>;
  const cloginId = data.clogin_id;
  if (typeof cloginId !== "number") return;
  let full: LiveEvent | null = null;
  let reduced: LiveEvent | null = null;
  for (const sink of sinks) {
    const { filter } = sink;
    if (filter.groupId !== row.groupId) continue;
    // One registration's subscriber gets its own events and its children's (the parent's answer holds them).
    if (filter.cloginId !== null && filter.cloginId !== cloginId && filter.cloginId !== data.parent_clogin_id) continue;
    if (filter.registrantView) {
      reduced ??= registrantViewOf(liveEventOf(row, cloginId, data));
      sink.offer(reduced);
    } else {
      full ??= liveEventOf(row, cloginId, data);
      sink.offer(full);
    }
  }
}

function liveEventOf(row: FeedEventRow, cloginId: number, data: Record<string, unknown>): LiveEvent {
  return {
    eventId: row.publicId,
    type: row.type as EventType,
    createdAt: row.createdAt,
    groupId: row.groupId,
    cloginId,
    actor: row.actor === null ? null : (JSON.parse(row.actor) as Record<string, unknown>),
    data,
    cursor: encodeFeedCursor(row.position),
  };
}

/**
 * What a registrant session learns of a change to its registration: that it changed, its type
 * and time. Not which API account changed it, nor the field, form, status or product ids in
 * `data`, which may name forms it cannot see: it reads its registration again with `me`.
 */
function registrantViewOf(event: LiveEvent): LiveEvent {
  const actorType = event.actor?.type;
  return {
    ...event,
    actor: typeof actorType === "string" ? { type: actorType } : null,
    data: { clogin_id: event.cloginId },
  };
}
