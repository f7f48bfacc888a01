/** `YYYY-MM-DD HH:MM:SS` (optionally with `.mmm`), read as UTC. Returns null when malformed. */
export function parseUtcDateTime(text: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?Z?$/.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", ms = "0"] = match;
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, +ms.padEnd(3, "0")));
  // Reject rollovers such as 2026-02-31.
  if (date.getUTCMonth() !== +mo - 1 || date.getUTCDate() !== +d) return null;
  return date;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** `YYYY-MM-DD HH:MM:SS` in UTC, the legacy raw date format. */
export function formatUtcDateTime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Human-readable UTC date and time, e.g. `Feb 1, 2026 9:30 AM`. */
export function formatHumanDateTime(date: Date): string {
  const hours = date.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()} ${hour12}:${pad(date.getUTCMinutes())} ${hours < 12 ? "AM" : "PM"}`;
}

/** Drivers hand datetimes back as Date (MySQL) or text (SQLite); both are UTC here. */
export function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  return parseUtcDateTime(value) ?? new Date(value);
}

/**
 * The end of a period given as `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC): a bare date means the
 * whole of that day, so a product "available until 2027-08-31" can still be bought that evening.
 */
export function parseUtcPeriodEnd(text: string): Date | null {
  const date = parseUtcDateTime(text);
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(text.trim())) return date;
  return new Date(date.getTime() + 24 * 3600 * 1000 - 1);
}
