import type { EntityManager } from "typeorm";
import { readSummaryRows, tagsOfSummaryRow, type SummaryRow, type TagRecord } from "../../data/registrations.data";
import { accountTotals, type AccountTotals } from "../account-totals";
import { connectedToOf } from "./registration-lookup";

/** The summary every users response carries (legacy `meta_info`), in domain terms. */
export interface UserSummary extends AccountTotals {
  uid: number;
  groupId: number;
  cloginId: number;
  /** The parent's clogin_id for a child, else null. */
  parentCloginId: number | null;
  /** Legacy `connected_to`: the parent's clogin_id for a child, else the user's own. */
  connectedTo: number;
  name: string;
  totalForms: number;
  completedForms: number;
  totalUserForms: number;
  totalCompletedUserForms: number;
  totalUserMandatoryForms: number;
  totalCompletedUserMandatoryForms: number;
  status: { id: number; name: string; color: string; isExcluded: boolean } | null;
  applicationDate: Date;
  /** The registration's last change (values, forms, cart, status, emails): changes since. */
  updatedAt: Date;
  commentCount: number;
  excluded: boolean;
  tagIds: number[];
  /** The tags themselves, by id (read with the summary, in the same statement). */
  tags: TagRecord[];
  nonExcludedChildren: number;
  star: boolean;
  assignedAdmin: { id: number; initials: string | null; color: string | null } | null;
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

/**
 * Summaries of many registrations in one SQL statement per 500 users, however many forms, cart
 * lines, tags or children they have. Missing uids are absent from the map.
 */
export async function loadUserSummaries(em: EntityManager, uids: readonly number[]): Promise<Map<number, UserSummary>> {
  const rows = await readSummaryRows(em, uids);
  return new Map(rows.map((row) => [row.uid, summaryOf(row)]));
}

/** The domain summary of a summary row. */
export function summaryOf(row: SummaryRow): UserSummary {
  const tags = tagsOfSummaryRow(row);
  const status =
    row.status_id === null
      ? null
      : {
          id: row.status_id,
          name: row.status_name ?? "",
          color: row.status_color ?? "",
          isExcluded: row.status_excluded,
        };
  const registration = { cloginId: row.person_id, parentCloginId: row.connected_to };
  return {
    uid: row.uid,
    groupId: row.project_id,
    ...registration,
    connectedTo: connectedToOf(registration),
    name: displayName({
      firstName: row.first_name,
      lastName: row.last_name,
      orgName: row.org_name,
      username: row.username,
    }),
    totalForms: row.total_forms,
    completedForms: row.completed_forms,
    totalUserForms: row.total_user_forms,
    totalCompletedUserForms: row.completed_user_forms,
    totalUserMandatoryForms: row.mandatory_user_forms,
    totalCompletedUserMandatoryForms: row.completed_mandatory_user_forms,
    ...accountTotals(row.order_cents, row.paid_cents),
    status,
    applicationDate: row.application_date,
    updatedAt: row.updated_at,
    commentCount: row.comment_count,
    excluded: status?.isExcluded ?? false,
    tagIds: tags.map((tag) => tag.id),
    tags,
    nonExcludedChildren: row.non_excluded_children,
    star: row.star,
    assignedAdmin:
      row.admin_id === null ? null : { id: row.admin_id, initials: row.admin_initials, color: row.admin_color },
  };
}
