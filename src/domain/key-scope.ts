// What a key may do, apart from the check (authorize.ts): the request context holds a KeyScope,
// and the check reads the context, so the declaration sits below both.

/**
 * What an API key may do (`regapi api-key create --groups … --scope …`). Null members mean no
 * limit: keys made before scopes existed have both null and keep full access.
 */
export interface KeyScope {
  /** The projects the key reaches; null: every project of its organization. */
  groupIds: readonly number[] | null;
  /** `read` and/or named write operations; null: everything. */
  operations: readonly ScopeName[] | null;
}

/**
 * The named operations a key can be scoped to. `read` covers every read (lists, details, the
 * key's own scope); each write is named by what it does. Data-rights calls are not reads: an
 * export holds everything about a person, so a reporting key does not get it with `read`.
 */
export const SCOPE_NAMES = [
  "read",
  "users.create",
  "users.update",
  "users.create_child",
  "users.set_status",
  "users.add_product",
  "users.add_email",
  "users.login",
  "statuses.create",
  "products.create",
  "webhooks",
  "persons.export",
  "persons.erase",
] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];

/** Parses the stored or typed scope (`read,users.update`); problems name what is wrong. */
export function parseScopeNames(raw: string): { names: ScopeName[] | null; unknown: string[] } {
  const parts = raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.includes("all")) return { names: null, unknown: parts.filter((part) => part !== "all") };
  const unknown = parts.filter((part) => !(SCOPE_NAMES as readonly string[]).includes(part));
  return { names: [...new Set(parts.filter((part): part is ScopeName => !unknown.includes(part)))], unknown };
}
