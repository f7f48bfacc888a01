import type { DataSource } from "typeorm";
import { z } from "zod";
import { readLastFeedPosition, readLiveFeed, type FeedEventRow } from "../../data/event-feed.data";
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
// events of the pull feed, pushed. Every instance polls the events table along the feed's
// positions (one statement per interval while it has subscribers, whatever their number) and
// hands each new event to its subscribers. Why the feed and not a publish from the writer: a feed
// position exists only after the event's transaction committed and positions become visible in
// increasing order (event-feed.data.ts), so nothing is pushed before its commit, nothing is
// skipped, every instance sees every write whichever instance made it, and the writer neither
// waits for nor knows about subscribers. Each subscriber has a bounded queue: one that cannot take
// its events is dropped, never buffered without end.

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

/** One subscriber's events, as an async iterator with a bounded queue. */
class LiveSubscription implements AsyncIterableIterator<LiveEvent> {
  private readonly queue: LiveEvent[] = [];
  private waiting: ((result: IteratorResult<LiveEvent>) => void) | null = null;
  private ended = false;

  constructor(
    readonly filter: LiveEventFilter,
    private readonly queueMax: number,
    private readonly onEnd: (subscription: LiveSubscription) => void,
    private readonly onOverflow: () => void,
  ) {}

  /** Never waits: an event for a full queue ends the subscription and tells its owner. */
  offer(event: LiveEvent): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: event, done: false });
    } else if (this.queue.length >= this.queueMax) {
      this.end();
      this.onOverflow();
    } else {
      this.queue.push(event);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    this.onEnd(this);
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<LiveEvent>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<LiveEvent>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<LiveEvent>> {
    this.end();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<LiveEvent> {
    return this;
  }
}

export interface LiveEventHubOptions {
  pollIntervalMs: number;
  queueMaxEvents: number;
  /** A failed poll (the database away): reported, and the same position read again next time. */
  onPollError(error: unknown): void;
}

/** Events read per statement; a full batch is followed by the next one at once. */
const POLL_BATCH = 500;

/**
 * The live events of one instance: polls the feed while it has subscribers and hands each event
 * to the subscribers it matches. Polls never overlap, and nothing here runs inside a write.
 */
export class LiveEventHub {
  private readonly subscriptions = new Set<LiveSubscription>();
  /** The feed position read up to; null while nobody subscribes (a new first subscriber starts at the end). */
  private position: number | null = null;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped when polling stops, so a poll in flight then drops what it read. */
  private generation = 0;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: LiveEventHubOptions,
  ) {}

  get subscriberCount(): number {
    return this.subscriptions.size;
  }

  /**
   * Starts receiving the events `filter` matches that join the feed from now on. `onOverflow` is
   * called (once) when the subscriber's queue is full: its owner drops the consumer.
   */
  async open(filter: LiveEventFilter, onOverflow: () => void): Promise<AsyncIterableIterator<LiveEvent>> {
    if (this.closed) throw new Error("live events are closed");
    const subscription = new LiveSubscription(
      filter,
      this.options.queueMaxEvents,
      (ended) => this.remove(ended),
      onOverflow,
    );
    this.subscriptions.add(subscription);
    try {
      await this.ensurePolling();
    } catch (error) {
      subscription.end();
      throw error;
    }
    return subscription;
  }

  /** Ends every subscription and stops polling. */
  close(): void {
    this.closed = true;
    for (const subscription of [...this.subscriptions]) subscription.end();
    this.stop();
  }

  private remove(subscription: LiveSubscription): void {
    this.subscriptions.delete(subscription);
    if (this.subscriptions.size === 0) this.stop();
  }

  private stop(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.position = null;
    this.starting = null;
  }

  private ensurePolling(): Promise<void> {
    if (this.position !== null) return Promise.resolve();
    if (this.starting) return this.starting;
    const generation = this.generation;
    this.starting = readLastFeedPosition(this.dataSource.manager).then((last) => {
      if (generation !== this.generation) return;
      this.position = last;
      this.starting = null;
      this.schedule(generation);
    });
    return this.starting;
  }

  private schedule(generation: number, delay = this.options.pollIntervalMs): void {
    if (generation !== this.generation) return;
    this.timer = setTimeout(() => void this.poll(generation), delay);
    this.timer.unref();
  }

  private async poll(generation: number): Promise<void> {
    const groupIds = [...new Set([...this.subscriptions].map((subscription) => subscription.filter.groupId))];
    let full = false;
    try {
      const rows = await readLiveFeed(this.dataSource.manager, {
        afterPosition: this.position ?? 0,
        groupIds,
        limit: POLL_BATCH,
      });
      if (generation !== this.generation) return;
      if (rows.length > 0) this.position = rows[rows.length - 1].position;
      for (const row of rows) this.dispatch(row);
      full = rows.length === POLL_BATCH;
    } catch (error) {
      if (generation === this.generation) this.options.onPollError(error);
    }
    this.schedule(generation, full ? 0 : this.options.pollIntervalMs);
  }

  private dispatch(row: FeedEventRow): void {
    if (!REGISTRATION_TYPES.has(row.type)) return;
    const data = JSON.parse(row.data) as Record<string, unknown>;
    const cloginId = data.clogin_id;
    if (typeof cloginId !== "number") return;
    let full: LiveEvent | null = null;
    let reduced: LiveEvent | null = null;
    for (const subscription of [...this.subscriptions]) {
      const { filter } = subscription;
      if (filter.groupId !== row.groupId || (filter.cloginId !== null && filter.cloginId !== cloginId)) continue;
      if (filter.registrantView) {
        reduced ??= registrantViewOf(liveEventOf(row, cloginId, data));
        subscription.offer(reduced);
      } else {
        full ??= liveEventOf(row, cloginId, data);
        subscription.offer(full);
      }
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
