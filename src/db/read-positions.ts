import type Redis from "ioredis";
import { formatGtidPosition, laterGtidPosition, parseGtidPosition, type GtidPosition } from "./gtid";

// Where each principal's last committed write stands (its GTID position), so that its next read
// on a replica waits for it. In Redis when REDIS_URL is set, so a write through one instance and
// a read through another see the same; otherwise in this process. A position only matters until
// every replica in the rotation has applied it: entries expire after POSITION_TTL_MS, longer than
// any replica may lag and stay in the rotation.

/** Positions by principal key (`account:<id>`, `registrant:<id>`). */
export interface ReadPositionStore {
  /** The latest position noted for any of `keys`, or null. Rejects when the store cannot answer. */
  get(keys: readonly string[]): Promise<GtidPosition | null>;
  /** Notes a committed write's position for `key`, keeping the later of it and the one noted. */
  note(key: string, position: GtidPosition): Promise<void>;
  close(): Promise<void>;
}

const MEMORY_ENTRIES = 100_000;

export function memoryReadPositions(ttlMs: number, now: () => number = Date.now): ReadPositionStore {
  const entries = new Map<string, { position: GtidPosition; expiresAt: number }>();
  return {
    async get(keys) {
      let found: GtidPosition | null = null;
      for (const key of keys) {
        const entry = entries.get(key);
        if (!entry) continue;
        if (entry.expiresAt <= now()) entries.delete(key);
        else found = laterGtidPosition(found, entry.position);
      }
      return found;
    },
    async note(key, position) {
      const merged = laterGtidPosition(entries.get(key)?.position ?? null, position) ?? position;
      entries.delete(key);
      entries.set(key, { position: merged, expiresAt: now() + ttlMs });
      // Oldest first in insertion order: a burst of principals cannot grow the map without bound.
      if (entries.size > MEMORY_ENTRIES) entries.delete(entries.keys().next().value as string);
    },
    async close() {
      entries.clear();
    },
  };
}

// One hash per principal, a field per replication domain holding `server-sequence`; a note keeps
// the higher sequence (compared as decimal text: sequences exceed Lua's exact integers), so two
// instances noting at once never move a principal's position back.
const NOTE_SCRIPT = `
for i = 1, #ARGV - 1, 2 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  local new = ARGV[i + 1]
  local take = not current
  if current then
    local c = string.match(current, '%-(%d+)$')
    local n = string.match(new, '%-(%d+)$')
    take = (#n > #c) or (#n == #c and n > c)
  end
  if take then redis.call('HSET', KEYS[1], ARGV[i], new) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[#ARGV])
return 1`;

/** Positions in Redis under `prefix`, on the instance's shared connection (closed by its owner). */
export function redisReadPositions(redis: Redis, prefix: string, ttlMs: number): ReadPositionStore {
  const store: ReadPositionStore = {
    async get(keys) {
      let found: GtidPosition | null = null;
      const hashes = await Promise.all(keys.map((key) => redis.hgetall(prefix + key)));
      for (const hash of hashes) {
        const text = Object.entries(hash)
          .map(([domain, rest]) => `${domain}-${rest}`)
          .join(",");
        found = laterGtidPosition(found, text ? parseGtidPosition(text) : null);
      }
      return found;
    },
    async note(key, position) {
      const args: string[] = [];
      for (const entry of formatGtidPosition(position).split(",")) {
        const [domain, server, sequence] = entry.split("-");
        args.push(domain, `${server}-${sequence}`);
      }
      await redis.eval(NOTE_SCRIPT, 1, prefix + key, ...args, String(ttlMs));
    },
    async close() {
      // The connection is the instance's, closed with it.
    },
  };
  return store;
}
