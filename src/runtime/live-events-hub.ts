import type { DataSource } from "typeorm";
import { readLastFeedPosition, readLiveFeed } from "../data/event-feed.data";
import { runInBackground } from "../db/sql-counter";
import {
  dispatchLiveEvent,
  type LiveEvent,
  type LiveEventFilter,
  type LiveEventSink,
} from "../domain/events/live-events";

// The live events of one instance (docs/graphql-clients.md#live-updates): reads the pull feed
// along its positions while the instance has subscribers (one statement per read, whatever their
// number) and hands each new event to the subscribers it matches (src/domain/events/live-events.ts).
// A read happens when it is woken: by this instance's feed sequencer after it placed events, or by
// another instance's through Redis (src/shared-state/feed-wake.ts). A wake is a hint, the feed the
// truth: a lost wake costs latency, never an event, because a fallback read comes
// SUBSCRIPTION_POLL_MS after activity and then, while nothing comes, ever more rarely up to
// SUBSCRIPTION_POLL_IDLE_MS. Without a subscriber it reads nothing. Each subscriber has a bounded
// queue: one that cannot take its events is dropped, never buffered without end.

/** One subscriber's events, as an async iterator with a bounded queue. */
class LiveSubscription implements AsyncIterableIterator<LiveEvent>, LiveEventSink {
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
  /** The fallback read this long after activity (SUBSCRIPTION_POLL_MS) … */
  pollIntervalMs: number;
  /** … doubling while nothing comes, up to this (SUBSCRIPTION_POLL_IDLE_MS). */
  pollIdleMs: number;
  queueMaxEvents: number;
  /** A failed read (the database away): reported, and the same position read again next time. */
  onPollError(error: unknown): void;
}

/** Events read per statement; a full batch is followed by the next one at once. */
const POLL_BATCH = 500;

/**
 * The live events of one instance: reads the feed while it has subscribers, when woken or on its
 * fallback timer, and hands each event to the subscribers it matches. Reads never overlap (a wake
 * during one makes another follow it), and nothing here runs inside a write.
 */
export class LiveEventHub {
  private readonly subscriptions = new Set<LiveSubscription>();
  /** The feed position read up to; null while nobody subscribes (a new first subscriber starts at the end). */
  private position: number | null = null;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped when reading stops, so a read in flight then drops what it read. */
  private generation = 0;
  /** The generation whose read is in flight, if one is. */
  private reading: number | null = null;
  /** A wake came during a read: read again once it is done. */
  private wokenDuringRead = false;
  /** The fallback delay now: pollIntervalMs after activity, doubling while idle. */
  private delay: number;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: LiveEventHubOptions,
  ) {
    this.delay = options.pollIntervalMs;
  }

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
      await this.ensureReading();
    } catch (error) {
      subscription.end();
      throw error;
    }
    return subscription;
  }

  /**
   * The feed may hold new events, up to `upTo` when the waker knows: read now. Ignored without
   * subscribers, and when this instance has read that far already.
   */
  wake(upTo?: number): void {
    if (this.position === null || this.closed) return;
    if (upTo !== undefined && upTo <= this.position) return;
    if (this.reading === this.generation) {
      this.wokenDuringRead = true;
      return;
    }
    this.delay = this.options.pollIntervalMs;
    this.readNow(this.generation);
  }

  /** Ends every subscription and stops reading. */
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
    this.wokenDuringRead = false;
    this.delay = this.options.pollIntervalMs;
  }

  private ensureReading(): Promise<void> {
    if (this.position !== null) return Promise.resolve();
    if (this.starting) return this.starting;
    const generation = this.generation;
    this.starting = runInBackground(() => readLastFeedPosition(this.dataSource.manager)).then((last) => {
      if (generation !== this.generation) return;
      this.position = last;
      this.starting = null;
      this.schedule(generation);
    });
    return this.starting;
  }

  private schedule(generation: number, delay = this.delay): void {
    if (generation !== this.generation) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.readNow(generation), delay);
    this.timer.unref();
  }

  private readNow(generation: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void runInBackground(() => this.read(generation));
  }

  private async read(generation: number): Promise<void> {
    if (generation !== this.generation || this.reading === generation) return;
    this.reading = generation;
    this.wokenDuringRead = false;
    const groupIds = [...new Set([...this.subscriptions].map((subscription) => subscription.filter.groupId))];
    let found = 0;
    try {
      const rows = await readLiveFeed(this.dataSource.manager, {
        afterPosition: this.position ?? 0,
        groupIds,
        limit: POLL_BATCH,
      });
      if (generation !== this.generation) return;
      found = rows.length;
      if (rows.length > 0) this.position = rows[rows.length - 1].position;
      for (const row of rows) dispatchLiveEvent(row, [...this.subscriptions]);
    } catch (error) {
      if (generation === this.generation) this.options.onPollError(error);
    } finally {
      if (this.reading === generation) this.reading = null;
    }
    if (found === POLL_BATCH || this.wokenDuringRead) return this.schedule(generation, 0);
    this.delay = found > 0 ? this.options.pollIntervalMs : Math.min(this.options.pollIdleMs, this.delay * 2);
    this.schedule(generation);
  }
}
