import type { DataSource } from "typeorm";
import { DEFAULT_ACCOUNT_CACHE_TTL_MS } from "../config/config";
import { findApiAccount, type ApiAccountRecord } from "../data/api-accounts.data";

// Authentication reads the API account of every request. The account is kept for a few seconds
// (ACCOUNT_CACHE_TTL_MS, default 5000; 0 turns the cache off) so a busy client does not pay one
// statement per request for it. The token is still compared on every request: only the stored
// row is kept, never a verdict. Unknown ids are kept too, so a known and an unknown Api-Id cost the
// same and timing does not tell them apart. Key management in this process (create, revoke,
// rotate) forgets the account at once. Another process (the CLI next to running instances)
// announces the change on Redis when REDIS_URL is set, and every instance forgets the account as
// the message arrives (src/shared-state/account-changes.ts); without Redis, or if the message is
// lost, the change is honoured within the TTL.

/** Entries above which the cache starts over, so random Api-Ids cannot grow it without bound. */
const MAX_ENTRIES = 10_000;

interface AccountCache {
  ttlMs: number;
  entries: Map<number, { expiresAt: number; account: Promise<ApiAccountRecord | null> }>;
}

const caches = new WeakMap<DataSource, AccountCache>();

function cacheOf(dataSource: DataSource): AccountCache {
  let cache = caches.get(dataSource);
  if (!cache) {
    cache = { ttlMs: DEFAULT_ACCOUNT_CACHE_TTL_MS, entries: new Map() };
    caches.set(dataSource, cache);
  }
  return cache;
}

/**
 * Sets how long accounts read through `dataSource` are kept (the app does, from config) and
 * forgets what was kept. The cache belongs to the DataSource: apps sharing one share it.
 */
export function configureAccountCache(dataSource: DataSource, ttlMs: number): void {
  const cache = cacheOf(dataSource);
  cache.ttlMs = ttlMs;
  cache.entries.clear();
}

/** The API account `id`, from the cache when read less than the TTL ago. */
export function findCachedApiAccount(
  dataSource: DataSource,
  id: number,
  nowMs = Date.now(),
): Promise<ApiAccountRecord | null> {
  const cache = cacheOf(dataSource);
  if (cache.ttlMs <= 0) return findApiAccount(dataSource.manager, id);
  const kept = cache.entries.get(id);
  if (kept && kept.expiresAt > nowMs) return kept.account;
  if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
  const account = findApiAccount(dataSource.manager, id);
  cache.entries.set(id, { expiresAt: nowMs + cache.ttlMs, account });
  // A failed read (database down) is not kept: the next request tries again.
  account.catch(() => {
    if (cache.entries.get(id)?.account === account) cache.entries.delete(id);
  });
  return account;
}

/** Forgets account `id` (after it was created, revoked or rotated in this process). */
export function forgetCachedApiAccount(dataSource: DataSource, id: number): void {
  caches.get(dataSource)?.entries.delete(id);
}

/** Forgets every kept account (a missed change announcement: Redis was unreachable for a while). */
export function forgetAllCachedApiAccounts(dataSource: DataSource): void {
  caches.get(dataSource)?.entries.clear();
}
