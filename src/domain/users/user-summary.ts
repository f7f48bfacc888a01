import { sqlFlag, sqlNumber, sqlPlaceholders } from "../../db/raw-rows";
import type { EntityManager } from "typeorm";
import { toDate } from "../../shared/dates";

/** The summary every users response carries (legacy `meta_info`), in domain terms. */
export interface UserSummary {
  uid: number;
  groupId: number;
  cloginId: number;
  /** The parent's clogin_id for a child, else null. */
  parentCloginId: number | null;
  name: string;
  totalForms: number;
  completedForms: number;
  totalUserForms: number;
  totalCompletedUserForms: number;
  totalUserMandatoryForms: number;
  totalCompletedUserMandatoryForms: number;
  totalOrderCents: number;
  totalPaidCents: number;
  totalBalanceCents: number;
  status: { id: number; name: string; color: string; isExcluded: boolean } | null;
  applicationDate: Date;
  commentCount: number;
  excluded: boolean;
  tagIds: number[];
  nonExcludedChildren: number;
  star: boolean;
  assignedAdmin: { id: number; initials: string | null; color: string | null } | null;
}

// Bounded IN lists; a page of up to this many users still costs two statements.
const CHUNK = 500;

const SUMMARY_SQL = (placeholders: string) => `
SELECT r.uid, r.project_id, r.person_id, r.connected_to, r.star, r.application_date,
       p.username, p.first_name, p.last_name, p.org_name,
       s.id AS status_id, s.name AS status_name, s.color AS status_color, s.is_excluded AS status_excluded,
       a.id AS admin_id, a.initials AS admin_initials, a.color AS admin_color,
       (SELECT COUNT(*) FROM registration_form rf WHERE rf.registration_id = r.uid) AS total_forms,
       (SELECT COUNT(*) FROM registration_form rf WHERE rf.registration_id = r.uid AND rf.completed = 1) AS completed_forms,
       (SELECT COUNT(*) FROM registration_form rf JOIN form f ON f.id = rf.form_id
          WHERE rf.registration_id = r.uid AND f.audience = 'user') AS total_user_forms,
       (SELECT COUNT(*) FROM registration_form rf JOIN form f ON f.id = rf.form_id
          WHERE rf.registration_id = r.uid AND f.audience = 'user' AND rf.completed = 1) AS completed_user_forms,
       (SELECT COUNT(*) FROM registration_form rf JOIN form f ON f.id = rf.form_id
          WHERE rf.registration_id = r.uid AND f.audience = 'user' AND f.mandatory = 1) AS mandatory_user_forms,
       (SELECT COUNT(*) FROM registration_form rf JOIN form f ON f.id = rf.form_id
          WHERE rf.registration_id = r.uid AND f.audience = 'user' AND f.mandatory = 1 AND rf.completed = 1) AS completed_mandatory_user_forms,
       (SELECT COALESCE(SUM(c.quantity * c.unit_price_cents), 0) FROM cart_line c WHERE c.registration_id = r.uid) AS order_cents,
       (SELECT COALESCE(SUM(pm.amount_cents), 0) FROM payment pm WHERE pm.registration_id = r.uid) AS paid_cents,
       (SELECT COUNT(*) FROM admin_comment ac WHERE ac.registration_id = r.uid) AS comment_count,
       (SELECT COUNT(*) FROM registration ch LEFT JOIN status cs ON cs.id = ch.status_id
          WHERE ch.project_id = r.project_id AND ch.connected_to = r.person_id
            AND (cs.is_excluded IS NULL OR cs.is_excluded = 0)) AS non_excluded_children
  FROM registration r
  JOIN person p ON p.id = r.person_id
  LEFT JOIN status s ON s.id = r.status_id
  LEFT JOIN admin a ON a.id = r.assigned_admin_id
 WHERE r.uid IN (${placeholders})`;

const TAGS_SQL = (placeholders: string) =>
  `SELECT registration_id, tag_id FROM registration_tag WHERE registration_id IN (${placeholders}) ORDER BY tag_id`;

type Row = Record<string, unknown>;

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
 * Summaries of many registrations in two SQL statements per 500 users, however many forms, cart
 * lines, tags or children they have. Missing uids are absent from the map.
 */
export async function loadUserSummaries(em: EntityManager, uids: readonly number[]): Promise<Map<number, UserSummary>> {
  const summaries = new Map<number, UserSummary>();
  const unique = [...new Set(uids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const placeholders = sqlPlaceholders(chunk.length);
    const rows: Row[] = await em.query(SUMMARY_SQL(placeholders), chunk);
    const tagRows: Row[] = await em.query(TAGS_SQL(placeholders), chunk);
    const tagsByUid = new Map<number, number[]>();
    for (const row of tagRows) {
      const list = tagsByUid.get(sqlNumber(row.registration_id)) ?? [];
      list.push(sqlNumber(row.tag_id));
      tagsByUid.set(sqlNumber(row.registration_id), list);
    }
    for (const row of rows) {
      const uid = sqlNumber(row.uid);
      // Discount lines are stored with a negative unit price; an order never goes below 0.00 (contract §13).
      const orderCents = Math.max(0, sqlNumber(row.order_cents));
      const paidCents = sqlNumber(row.paid_cents);
      const status =
        row.status_id == null
          ? null
          : {
              id: sqlNumber(row.status_id),
              name: String(row.status_name),
              color: String(row.status_color),
              isExcluded: sqlFlag(row.status_excluded),
            };
      summaries.set(uid, {
        uid,
        groupId: sqlNumber(row.project_id),
        cloginId: sqlNumber(row.person_id),
        parentCloginId: row.connected_to == null ? null : sqlNumber(row.connected_to),
        name: displayName({
          firstName: (row.first_name as string | null) ?? null,
          lastName: (row.last_name as string | null) ?? null,
          orgName: (row.org_name as string | null) ?? null,
          username: row.username == null ? "" : String(row.username),
        }),
        totalForms: sqlNumber(row.total_forms),
        completedForms: sqlNumber(row.completed_forms),
        totalUserForms: sqlNumber(row.total_user_forms),
        totalCompletedUserForms: sqlNumber(row.completed_user_forms),
        totalUserMandatoryForms: sqlNumber(row.mandatory_user_forms),
        totalCompletedUserMandatoryForms: sqlNumber(row.completed_mandatory_user_forms),
        totalOrderCents: orderCents,
        totalPaidCents: paidCents,
        totalBalanceCents: orderCents - paidCents,
        status,
        applicationDate: toDate(row.application_date as Date | string),
        commentCount: sqlNumber(row.comment_count),
        excluded: status?.isExcluded ?? false,
        tagIds: (tagsByUid.get(uid) ?? []).sort((a, b) => a - b),
        nonExcludedChildren: sqlNumber(row.non_excluded_children),
        star: sqlFlag(row.star),
        assignedAdmin:
          row.admin_id == null
            ? null
            : {
                id: sqlNumber(row.admin_id),
                initials: (row.admin_initials as string | null) ?? null,
                color: (row.admin_color as string | null) ?? null,
              },
      });
    }
  }
  return summaries;
}
