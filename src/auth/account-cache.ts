import type { DataSource } from "typeorm";
import { DEFAULT_ACCOUNT_CACHE_TTL_MS } from "../config/config";
import { findApiAccount, type ApiAccountRecord } from "../data/api-accounts.data";

// Authentication reads the API account of every request. The account is kept for a few seconds
// (ACCOUNT_CACHE_TTL_MS, default in src/config; 0 turns the cache off) so a busy client does not pay one
// statement per request for it. The token is still compared on every request: only the stored
// row is kept, never a verdict. Unknown ids are kept too, so a known and an unknown Api-Id cost the
// same and timing does not tell them apart. Key management in this process (create, revoke,
// rotate) forgets the account at once. Another process (the CLI next to running instances)
// announces the change on Redis when REDIS_URL is set, and every instance forgets the account as
// the message arrives (src/shared-state/account-changes.ts); without Redis, or if the message is
// lost, the change is honoured within the TTL.

/** Entries above which the cache starts over, so random Api-Ids cannot grow it without bound. */
const MAX_ENTRIES = 10_000;

/** The API accounts kept for one process (the runtime makes it, with ACCOUNT_CACHE_TTL_MS). */
export class AccountCache {
  private readonly entries = new Map<number, { expiresAt: number; account: Promise<ApiAccountRecord | null> }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly ttlMs = DEFAULT_ACCOUNT_CACHE_TTL_MS,
  ) {}

  /** The API account `id`, from the cache when read less than the TTL ago. */
  find(id: number, nowMs = Date.now()): Promise<ApiAccountRecord | null> {
    if (this.ttlMs <= 0) return findApiAccount(this.dataSource.manager, id);
    const kept = this.entries.get(id);
    if (kept && kept.expiresAt > nowMs) return kept.account;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const account = findApiAccount(this.dataSource.manager, id);
    this.entries.set(id, { expiresAt: nowMs + this.ttlMs, account });
    // A failed read (database down) is not kept: the next request tries again.
    account.catch(() => {
      if (this.entries.get(id)?.account === account) this.entries.delete(id);
    });
    return account;
  }

  /** Forgets account `id` (after it was created, revoked or rotated in this process). */
  forget(id: number): void {
    this.entries.delete(id);
  }

  /** Forgets every kept account (a missed change announcement: Redis was unreachable for a while). */
  forgetAll(): void {
    this.entries.clear();
  }
}
