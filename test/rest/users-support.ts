// The users response shape (user_info and meta_info), shared by the users-*.test.ts files.

type Json = Record<string, unknown>;

const META_KEYS = [
  "u_name",
  "total_forms",
  "completed_forms",
  "total_user_forms",
  "total_completed_user_forms",
  "total_user_mandatory_forms",
  "total_completed_user_mandatory_forms",
  "total_order",
  "total_paid",
  "total_balance",
  "status_id",
  "status_name",
  "status_color",
  "application_date",
  "application_date_raw",
  "u_comments",
  "group_id",
  "uid",
  "clogin_id",
  "excluded",
  "connected_to",
  "total_user_tags",
  "user_tag_ids",
  "total_non_excluded_children",
  "star",
  "admin_initials",
  "admin_color",
  "assigned_admin_id",
];
const NULLABLE_META = new Set([
  "status_name",
  "status_color",
  "user_tag_ids",
  "admin_initials",
  "admin_color",
  "assigned_admin_id",
]);

/** `user_info` and `meta_info` (contract §6): every key, every value a string (or null where nullable). */
export function expectUserEnvelope(
  body: Json,
  user: { cloginId: number; groupId: number; connectedTo?: number },
): void {
  const connectedTo = String(user.connectedTo ?? user.cloginId);
  expect(body.user_info).toEqual({
    clogin_id: String(user.cloginId),
    group_id: String(user.groupId),
    connected_to: connectedTo,
  });
  const meta = body.meta_info as Json;
  expect(Object.keys(meta)).toEqual(META_KEYS);
  for (const key of META_KEYS) {
    if (NULLABLE_META.has(key) && meta[key] === null) continue;
    expect([key, typeof meta[key]]).toEqual([key, "string"]);
  }
  for (const key of META_KEYS.filter((k) => k.startsWith("total_") || k.endsWith("_forms") || k === "u_comments")) {
    if (["total_order", "total_paid", "total_balance"].includes(key)) expect(meta[key]).toMatch(/^-?\d+\.\d{2}$/);
    else expect(meta[key]).toMatch(/^\d+$/);
  }
  expect(meta.application_date_raw).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  expect(meta.excluded).toMatch(/^[01]$/);
  expect(meta.star).toMatch(/^[01]$/);
  expect(meta.clogin_id).toBe(String(user.cloginId));
  expect(meta.group_id).toBe(String(user.groupId));
  expect(meta.connected_to).toBe(connectedTo);
}
