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

/** Legacy `meta_info`: the 28 keys of contract §6, every value a string or null. */
export function presentMetaInfo(summary: UserSummary) {
  return {
    u_name: summary.name,
    total_forms: String(summary.totalForms),
    completed_forms: String(summary.completedForms),
    total_user_forms: String(summary.totalUserForms),
    total_completed_user_forms: String(summary.totalCompletedUserForms),
    total_user_mandatory_forms: String(summary.totalUserMandatoryForms),
    total_completed_user_mandatory_forms: String(summary.totalCompletedUserMandatoryForms),
    total_order: formatCents(summary.totalOrderCents),
    total_paid: formatCents(summary.totalPaidCents),
    total_balance: formatCents(summary.totalBalanceCents),
    status_id: String(summary.status?.id ?? 0),
    status_name: summary.status?.name ?? null,
    status_color: summary.status?.color ?? null,
    application_date: formatHumanDateTime(summary.applicationDate),
    application_date_raw: formatUtcDateTime(summary.applicationDate),
    u_comments: String(summary.commentCount),
    group_id: String(summary.groupId),
    uid: String(summary.uid),
    clogin_id: String(summary.cloginId),
    excluded: summary.excluded ? "1" : "0",
    connected_to: String(summary.connectedTo),
    total_user_tags: String(summary.tagIds.length),
    user_tag_ids: summary.tagIds.length > 0 ? summary.tagIds.join(",") : null,
    total_non_excluded_children: String(summary.nonExcludedChildren),
    star: summary.star ? "1" : "0",
    admin_initials: summary.assignedAdmin?.initials ?? null,
    admin_color: summary.assignedAdmin?.color ?? null,
    assigned_admin_id: summary.assignedAdmin ? String(summary.assignedAdmin.id) : null,
  };
}
