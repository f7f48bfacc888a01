import { accountTotals } from "./account-sums";
import { decodeColumn } from "./sql-rows";

// How the user summary's members read their columns (user-projection.ts): the decoders of a
// summary statement's row, each tolerating a part the statement did not read.

/** A summary statement's row as the driver returns it; a part the statement did not read is absent. */
export type RawSummaryRow = Readonly<Record<string, unknown>>;

export const int = (value: unknown) => decodeColumn("int", value) as number;
export const intOrNull = (value: unknown) => decodeColumn("intOrNull", value) as number | null;
export const textOrNull = (value: unknown) => decodeColumn("textOrNull", value) as string | null;
export const flag = (value: unknown) => decodeColumn("flag", value) as boolean;
// A column of a part the statement did not read is absent (undefined), not NULL: zero or false.
export const intOrZero = (value: unknown) => (value === undefined ? 0 : int(value));
const ZERO = 48;
const COMMA = 44;

/**
 * Count `index` of `form_counts` ("n,n,n,n,n,n", or the first alone as a number), 0 when absent.
 * Read in place: six members read it per row, and splitting the column each time made an array
 * and six strings per member. Anything but digits reads as Number() reads it.
 */
export function formCount(raw: RawSummaryRow, index: number): number {
  const value = raw.form_counts;
  if (value == null) return 0;
  if (typeof value === "number" && index === 0) return value;
  const text = String(value);
  let at = 0;
  for (let skipped = 0; skipped < index; skipped++) {
    at = text.indexOf(",", at) + 1;
    if (at === 0) return 0;
  }
  let count = 0;
  let end = at;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (code === COMMA) break;
    const digit = code - ZERO;
    if (digit < 0 || digit > 9) {
      const next = text.indexOf(",", at);
      return Number(next === -1 ? text.slice(at) : text.slice(at, next));
    }
    count = count * 10 + digit;
  }
  return count;
}

/** `first last`, trimmed; else the organization name; else the username (contract §6). */
export function displayName(person: {
  firstName: string | null;
  lastName: string | null;
  orgName: string | null;
  username: string;
}): string {
  const full = `${person.firstName ?? ""} ${person.lastName ?? ""}`.trim();
  return full || person.orgName?.trim() || person.username;
}

export interface TagRecord {
  id: number;
  name: string;
}

export function tagsOf(raw: RawSummaryRow): TagRecord[] {
  const parsed = raw.tags === undefined ? null : decodeColumn("jsonOrNull", raw.tags);
  const tags = Array.isArray(parsed) ? (parsed as { id: unknown; name: unknown }[]) : [];
  return tags
    .filter((tag) => tag && tag.id != null)
    .map((tag) => ({ id: Number(tag.id), name: String(tag.name ?? "") }))
    .sort((a, b) => a.id - b.id);
}

export function statusOf(raw: RawSummaryRow) {
  const id = intOrNull(raw.status_id);
  if (id === null) return null;
  return {
    id,
    name: textOrNull(raw.status_name) ?? "",
    color: textOrNull(raw.status_color) ?? "",
    isExcluded: flag(raw.status_excluded),
  };
}

export const totalsOf = (raw: RawSummaryRow) => accountTotals(intOrZero(raw.order_cents), intOrZero(raw.paid_cents));
