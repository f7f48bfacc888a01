// MariaDB GTID positions (`domain-server-sequence`, one per replication domain, comma-separated),
// as @@last_gtid, @@gtid_binlog_pos and MASTER_GTID_WAIT use them. A position is what a replica
// must have applied before a read there may see a given write.

/** One position: per replication domain, the server that wrote and the sequence number reached. */
export type GtidPosition = ReadonlyMap<number, { server: number; sequence: bigint }>;

const ENTRY = /^(\d{1,10})-(\d{1,10})-(\d{1,20})$/;
const MAX_U32 = 4_294_967_295;
const MAX_U64 = 18_446_744_073_709_551_615n;
/** Domains in one position: a deployment has a handful; more is not a position we wrote. */
const MAX_DOMAINS = 16;

/** The position in `text`, or null when it is not one (empty included). */
export function parseGtidPosition(text: string): GtidPosition | null {
  const entries = text.trim() === "" ? [] : text.split(",").map((entry) => entry.trim());
  if (entries.length === 0 || entries.length > MAX_DOMAINS) return null;
  const position = new Map<number, { server: number; sequence: bigint }>();
  for (const entry of entries) {
    const match = ENTRY.exec(entry);
    if (!match) return null;
    const [domain, server, sequence] = [Number(match[1]), Number(match[2]), BigInt(match[3])];
    if (domain > MAX_U32 || server > MAX_U32 || sequence > MAX_U64) return null;
    if (position.has(domain)) return null;
    position.set(domain, { server, sequence });
  }
  return position;
}

/** The text MariaDB reads: entries sorted by domain. */
export function formatGtidPosition(position: GtidPosition): string {
  return [...position.entries()]
    .sort(([a], [b]) => a - b)
    .map(([domain, { server, sequence }]) => `${domain}-${server}-${sequence}`)
    .join(",");
}

/** The later of two positions, domain by domain (null stands for "nothing to wait for"). */
export function laterGtidPosition(a: GtidPosition | null, b: GtidPosition | null): GtidPosition | null {
  if (!a || a.size === 0) return b && b.size > 0 ? b : null;
  if (!b || b.size === 0) return a;
  const merged = new Map(a);
  for (const [domain, entry] of b) {
    const current = merged.get(domain);
    if (!current || entry.sequence > current.sequence) merged.set(domain, entry);
  }
  return merged;
}

/** Whether `applied` (a replica's @@gtid_slave_pos) already holds every transaction up to `wanted`. */
export function gtidPositionCovers(applied: GtidPosition | null, wanted: GtidPosition): boolean {
  for (const [domain, entry] of wanted) {
    const reached = applied?.get(domain);
    if (!reached || reached.sequence < entry.sequence) return false;
  }
  return true;
}
