import type { UserSummary } from "../../domain/users/user-summary";
import { formatHumanDateTime, formatUtcDateTime } from "../../common/dates";
import { formatCents } from "../../common/money";

/** Legacy `user_info`: ids as strings; `connected_to` is the parent for a child, else the user itself. */
export function presentUserInfo(summary: UserSummary) {
  return {
    clogin_id: String(summary.cloginId),
    group_id: String(summary.groupId),
    connected_to: String(summary.connectedTo),
  };
}

type MetaInfoValue = string | null;

/**
 * Legacy `meta_info`: the 28 keys of contract §6, every value a string or null, one line per key
 * (the summary is declared in src/data/user-projection.ts). Exported as a table so that a member
 * added to the projection is served by adding its line (docs/architecture.md).
 */
export const META_INFO_KEYS: Record<string, (summary: UserSummary) => MetaInfoValue> = {
  u_name: (s) => s.name,
  total_forms: (s) => String(s.totalForms),
  completed_forms: (s) => String(s.completedForms),
  total_user_forms: (s) => String(s.totalUserForms),
  total_completed_user_forms: (s) => String(s.totalCompletedUserForms),
  total_user_mandatory_forms: (s) => String(s.totalUserMandatoryForms),
  total_completed_user_mandatory_forms: (s) => String(s.totalCompletedUserMandatoryForms),
  total_order: (s) => formatCents(s.totalOrderCents),
  total_paid: (s) => formatCents(s.totalPaidCents),
  total_balance: (s) => formatCents(s.totalBalanceCents),
  status_id: (s) => String(s.status?.id ?? 0),
  status_name: (s) => s.status?.name ?? null,
  status_color: (s) => s.status?.color ?? null,
  application_date: (s) => formatHumanDateTime(s.applicationDate),
  application_date_raw: (s) => formatUtcDateTime(s.applicationDate),
  u_comments: (s) => String(s.commentCount),
  group_id: (s) => String(s.groupId),
  uid: (s) => String(s.uid),
  clogin_id: (s) => String(s.cloginId),
  excluded: (s) => (s.excluded ? "1" : "0"),
  connected_to: (s) => String(s.connectedTo),
  total_user_tags: (s) => String(s.tagIds.length),
  user_tag_ids: (s) => (s.tagIds.length > 0 ? s.tagIds.join(",") : null),
  total_non_excluded_children: (s) => String(s.nonExcludedChildren),
  star: (s) => (s.star ? "1" : "0"),
  admin_initials: (s) => s.assignedAdmin?.initials ?? null,
  admin_color: (s) => s.assignedAdmin?.color ?? null,
  assigned_admin_id: (s) => (s.assignedAdmin ? String(s.assignedAdmin.id) : null),
};

/** The legacy `meta_info` of a summary, its keys in table order. */
export function presentMetaInfo(summary: UserSummary): Record<string, MetaInfoValue> {
  const meta: Record<string, MetaInfoValue> = {};
  for (const key in META_INFO_KEYS) meta[key] = META_INFO_KEYS[key](summary);
  return meta;
}
