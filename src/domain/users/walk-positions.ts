// Where get_user_list remembers the positions it handed out (user-list.ts). In process memory by
// default; with REDIS_URL the runtime keeps them in Redis (src/shared-state/), so a walk whose
// pages are served by different instances, or by an instance restarted in between, continues at
// the same cost as on one.

/** What a handed-out next_starting_position stands for. */
export interface WalkPosition {
  /** The uid that ended the page before: the next page starts after it (keyset). */
  afterUid: number;
  /** A changes-since walk (modified_since) continues after (afterUpdatedAtMs, afterUid). */
  afterUpdatedAtMs?: number;
  /** The totals the walk started with, so its pages agree with each other. */
  totalUsers: number;
  totals: { totalUsers: number; totalActiveUsers: number; totalOrderCents: number; totalPaidCents: number };
}

export interface WalkPositionStore {
  /** The position remembered under `key`, or null (never handed out, expired, or the store unreachable). */
  recall(key: string): Promise<WalkPosition | null>;
  /** Remembers a position for `ttlMs`; a store that cannot is silent (the next page then skips to it). */
  remember(key: string, position: WalkPosition, ttlMs: number): Promise<void>;
}

const MEMORY_ENTRIES = 10_000;

/** The in-process store: a bounded map, oldest out first. */
export class MemoryWalkPositions implements WalkPositionStore {
  private readonly entries = new Map<string, { position: WalkPosition; expiresAt: number }>();

  recall(key: string): Promise<WalkPosition | null> {
    const found = this.entries.get(key);
    if (!found) return Promise.resolve(null);
    if (Date.now() >= found.expiresAt) {
      this.entries.delete(key);
      return Promise.resolve(null);
    }
    return Promise.resolve(found.position);
  }

  remember(key: string, position: WalkPosition, ttlMs: number): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, { position, expiresAt: Date.now() + ttlMs });
    // Oldest first out: a Map iterates in insertion order.
    while (this.entries.size > MEMORY_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return Promise.resolve();
  }

  clear(): void {
    this.entries.clear();
  }
}
