// What a key may do, apart from the checks (group-scope.ts): the request context holds a KeyScope,
// and the checks read the context, so the declaration sits below both.

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
