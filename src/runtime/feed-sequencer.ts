import { onCommitWithEvents } from "../db/commit-signal";
import { runInBackground } from "../db/sql-counter";
import { createRequestContext, type RequestContext } from "../domain/context";
import type { ProcessState } from "../domain/process-state";
import { eventsAwaitFeed, FEED_PLACE_BATCH, placeCommittedEvents } from "../domain/events/event-feed";
import type { Logger } from "../http/logger";

// The feed sequencer: gives committed events their place in the pull feed, whether or not the
// delivery worker runs. Every instance runs one. A COMMIT that wrote events wakes it at once
// (src/db/commit-signal.ts); it places every event waiting, in one short transaction per batch,
// and reports the last position to the live events (this instance's, and the others' through
// Redis). One pass runs at a time, and passes woken by commits start at least
// FEED_PASS_INTERVAL_MS apart: a lone write is placed at once, and under a write load each pass
// serves the commits of its interval, where a pass per commit (a transaction of several
// statements) would cost more than the write itself. Events committed where no signal reaches it (another process, the CLI, an
// instance that stopped between its COMMIT and the placing) are found by a look every
// FEED_POLL_MS (250 ms) after activity, backing off to FEED_POLL_IDLE_MS (5 s) while nothing comes.
//
// Why after the commit and not in the write: a position handed out in the writing transaction
// would put every write of every registration in one queue, for the feed row's lock from the
// events' INSERT to the COMMIT (and on Galera every two writes through two nodes in one
// certification conflict), and cost each write a statement. Placed after the commit, by a
// transaction that holds the feed row's lock to its own COMMIT, positions still become visible in
// increasing order, and nothing is visible before its write committed.

/** The look for events no signal announced: this soon after activity … */
export const FEED_POLL_MIN_MS = 250;
/** … doubling, while nothing is found, up to this. */
export const FEED_POLL_MAX_MS = 5000;
/** The shortest time from the start of one pass woken by commits to the start of the next. */
export const FEED_PASS_INTERVAL_MS = 25;

export interface FeedSequencerOptions {
  /** The process state its transactions run in. */
  state: ProcessState;
  logger: Logger;
  /** Called after a transaction placed events, with the last position it gave. */
  onPlaced(lastPosition: number): void;
  pollMinMs?: number;
  pollMaxMs?: number;
  /** FEED_PASS_INTERVAL_MS; 0: a pass as soon as the previous one ended. */
  passIntervalMs?: number;
}

export interface FeedSequencer {
  /** Events may wait for their position: place them now (a commit of this process calls it itself). */
  wake(): void;
  /** Places what it was woken for, then stops. */
  stop(): Promise<void>;
  readonly stats: { placed: number };
}

export function startFeedSequencer(options: FeedSequencerOptions): FeedSequencer {
  return new SequencerLoop(options);
}

/** The sequencer's one loop: wait for a wake or the look's timer, place, repeat; stop after what it was woken for. */
class SequencerLoop implements FeedSequencer {
  readonly stats = { placed: 0 };
  private readonly ctx: RequestContext;
  private readonly pollMinMs: number;
  private readonly pollMaxMs: number;
  private readonly passIntervalMs: number;
  private readonly unsubscribe: () => void;
  private readonly running: Promise<void>;
  private woken = false;
  /** When the last pass woken by commits started (0: a backlog is left, placed at once). */
  private passStartedAt = 0;
  private stopping = false;
  private interrupt: (() => void) | null = null;
  private endSpacing: (() => void) | null = null;

  constructor(private readonly options: FeedSequencerOptions) {
    this.pollMinMs = options.pollMinMs ?? FEED_POLL_MIN_MS;
    this.pollMaxMs = Math.max(this.pollMinMs, options.pollMaxMs ?? FEED_POLL_MAX_MS);
    this.passIntervalMs = Math.max(0, options.passIntervalMs ?? FEED_PASS_INTERVAL_MS);
    this.ctx = createRequestContext(options.state, "feed-sequencer");
    this.unsubscribe = onCommitWithEvents(options.state.dataSource, () => this.wake());
    this.running = runInBackground(() => this.run());
  }

  wake(): void {
    this.woken = true;
    this.interrupt?.();
  }

  async stop(): Promise<void> {
    if (!this.stopping) this.unsubscribe();
    this.stopping = true;
    this.interrupt?.();
    this.endSpacing?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let delay = this.pollMinMs;
    for (;;) {
      if (!this.woken && !this.stopping) await this.pause(delay);
      if (this.stopping && !this.woken) return;
      const signalled = this.woken;
      if (signalled) await this.spaced();
      this.woken = false;
      try {
        delay = (await this.pass(signalled)) ? this.pollMinMs : Math.min(this.pollMaxMs, delay * 2);
      } catch (error) {
        // The database away, or a conflict past its reruns: the events wait for the next pass.
        const err = error instanceof Error ? error.message : String(error);
        this.options.logger.warn({ err }, "feed sequencer: placing failed");
        if (this.stopping) return;
        delay = this.pollMinMs;
      }
    }
  }

  /** One pass: true when it placed events (activity), false when there was nothing. */
  private async pass(signalled: boolean): Promise<boolean> {
    // Unwoken, one plain look first: an idle instance costs one statement per look, not a transaction.
    if (!signalled && !(await eventsAwaitFeed(this.ctx))) return false;
    const { placed, lastPosition } = await placeCommittedEvents(this.ctx);
    if (placed === 0) return false;
    this.stats.placed += placed;
    this.options.onPlaced(lastPosition);
    if (placed === FEED_PLACE_BATCH) {
      this.woken = true;
      this.passStartedAt = 0;
    }
    return true;
  }

  /** Waits until the interval since the last woken pass's start is over (a stop ends the wait), then notes this pass's start. */
  private async spaced(): Promise<void> {
    const left = this.passStartedAt + this.passIntervalMs - Date.now();
    if (left > 0 && !this.stopping) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.endSpacing?.(), left);
        this.endSpacing = () => {
          clearTimeout(timer);
          this.endSpacing = null;
          resolve();
        };
      });
    }
    this.passStartedAt = Date.now();
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.interrupt?.(), ms);
      timer.unref();
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = null;
        resolve();
      };
    });
  }
}
