import { randomUUID } from "node:crypto";
import express, { type Express, type Request, type Response } from "express";
import type { Pool, PoolConnection } from "mysql2/promise";
import { apiTokenMatches } from "../../src/auth/secrets";
import { formatUtcDateTime } from "../../src/common/dates";
import { formatCents } from "../../src/common/money";
import type { FieldType } from "../../src/entities";
import { answerIsEmpty, decodeAnswer, isChoiceType } from "../../src/domain/forms/field-value-codec";
import { interpretFieldInput } from "../../src/domain/forms/field-input";
import type { UserSummary } from "../../src/domain/users/user-summary";
import { decodeSummaries } from "../../src/data/user-projection";
import { presentMetaInfo, presentUserInfo } from "../../src/rest/presenters/user-envelope";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";

// The hand-written baseline of the benchmark (issue 12): Express + mysql2, no ORM, no GraphQL
// server, no DataLoader, no schema validation, the fewest statements a person writing SQL by hand
// would issue. It answers exactly the benchmark's requests, byte for byte as regapi does (a jest
// test compares them), and nothing else: it is a yardstick, not a second implementation.
// Authentication and project ownership are one statement; nothing is cached between requests.
// Pure formatting (dates, money, meta_info keys, answer decoding, Node ids) is shared with regapi, so the
// bytes agree by construction and the comparison measures data access and framework cost.
// Writes are out of scope but for add_email of one email (issue 33): an update that would change
// anything answers 501.

type Row = Record<string, unknown>;

/** Statements issued by the baseline since start (the bench reports them per request). */
export const baselineSql = { total: 0 };

async function query(db: Pool | PoolConnection, sql: string, params: unknown[] = []) {
  baselineSql.total += 1;
  const [rows] = await db.query(sql, params);
  return rows as Row[];
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

interface Caller {
  organizationId: number;
  ownsProject: boolean;
}

/** Authentication and ownership of `groupId` in one statement. */
async function authenticate(db: Pool, req: Request, groupId: number | null): Promise<Caller> {
  const apiId = Number(req.get("api-id"));
  const rows = await query(
    db,
    `SELECT a.organization_id, a.api_user, a.token_hash, a.previous_token_hash, a.previous_token_expires_at, a.active,
            pr.id AS owned_project
       FROM api_account a LEFT JOIN project pr ON pr.id = ? AND pr.organization_id = a.organization_id
      WHERE a.id = ?`,
    [groupId ?? 0, Number.isSafeInteger(apiId) ? apiId : 0],
  );
  const account = rows[0];
  const token = req.get("api-token") ?? "";
  const tokenOk =
    !!account &&
    (apiTokenMatches(token, String(account.token_hash)) ||
      (account.previous_token_hash != null &&
        new Date(account.previous_token_expires_at as string).getTime() > Date.now() &&
        apiTokenMatches(token, String(account.previous_token_hash))));
  const userOk = !!account && String(account.api_user).toLowerCase() === (req.get("api-user") ?? "").toLowerCase();
  if (!account || !tokenOk || !userOk || Number(account.active) !== 1) throw new Refused(401, "UNAUTHENTICATED");
  const caller = { organizationId: Number(account.organization_id), ownsProject: account.owned_project != null };
  if (groupId !== null && !caller.ownsProject) throw new Refused(403, "FORBIDDEN");
  return caller;
}

const SUMMARY_SELECT = `SELECT r.uid, r.project_id, r.person_id, r.connected_to, r.star, r.application_date, r.updated_at,
       p.username, p.first_name, p.last_name, p.org_name,
       s.id AS status_id, s.name AS status_name, s.color AS status_color, s.is_excluded AS status_excluded,
       a.id AS admin_id, a.initials AS admin_initials, a.color AS admin_color,
       (SELECT CONCAT(COUNT(*), ',', COALESCE(SUM(rf.completed), 0),
                 ',', COALESCE(SUM(f.audience = 'user'), 0), ',', COALESCE(SUM(f.audience = 'user' AND rf.completed = 1), 0),
                 ',', COALESCE(SUM(f.audience = 'user' AND f.mandatory = 1), 0),
                 ',', COALESCE(SUM(f.audience = 'user' AND f.mandatory = 1 AND rf.completed = 1), 0))
          FROM registration_form rf JOIN form f ON f.id = rf.form_id WHERE rf.registration_id = r.uid) AS form_counts,
       (SELECT COALESCE(SUM(c.quantity * c.unit_price_cents), 0) FROM cart_line c WHERE c.registration_id = r.uid) AS order_cents,
       (SELECT COALESCE(SUM(pm.amount_cents), 0) FROM payment pm WHERE pm.registration_id = r.uid) AS paid_cents,
       (SELECT COUNT(*) FROM admin_comment ac WHERE ac.registration_id = r.uid) AS comment_count,
       (SELECT COUNT(*) FROM registration ch LEFT JOIN status cs ON cs.id = ch.status_id
          WHERE ch.project_id = r.project_id AND ch.connected_to = r.person_id
            AND (cs.is_excluded IS NULL OR cs.is_excluded = 0)) AS non_excluded_children,
       (SELECT JSON_ARRAYAGG(JSON_OBJECT('id', t.id, 'name', t.name)) FROM registration_tag rt JOIN tag t ON t.id = rt.tag_id
          WHERE rt.registration_id = r.uid) AS tags
  FROM registration r
  JOIN person p ON p.id = r.person_id
  LEFT JOIN status s ON s.id = r.status_id
  LEFT JOIN admin a ON a.id = r.assigned_admin_id`;

// The summary decoded as regapi decodes it (src/data/user-projection.ts): pure decoding, shared.
const summaries = (rows: Row[]): UserSummary[] => decodeSummaries(rows, SUMMARY_SELECT, null);

async function userSummary(db: Pool | PoolConnection, groupId: number, cloginId: number) {
  const [summary] = summaries(
    await query(db, `${SUMMARY_SELECT} WHERE r.project_id = ? AND r.person_id = ?`, [groupId, cloginId]),
  );
  if (!summary) throw new Refused(404, "USER_NOT_FOUND");
  return summary;
}

const envelopeOf = (summary: UserSummary) => ({
  user_info: presentUserInfo(summary),
  meta_info: presentMetaInfo(summary),
});

/** users update of values that are already stored (6 statements), or mark_forms_complete all on complete forms. */
async function update(db: Pool, body: Row, groupId: number): Promise<unknown> {
  const cloginId = Number(body.clogin_id);
  const connection = await db.getConnection();
  try {
    await query(connection, "START TRANSACTION");
    const locked = await query(
      connection,
      `SELECT uid FROM registration WHERE project_id = ? AND person_id = ? FOR UPDATE`,
      [groupId, cloginId],
    );
    if (locked.length === 0) throw new Refused(404, "USER_NOT_FOUND");
    const uid = Number(locked[0].uid);
    let answer: Row;
    if (body.mark_forms_complete === "all") {
      // The form set, each form's mandatory fields and their answers.
      const rows = await query(
        connection,
        `SELECT fo.id AS form_id, fo.name AS form_name, rf.completed, f.id AS field_id, f.label, f.field_type, fv.value
           FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
           LEFT JOIN field f ON f.form_id = fo.id AND f.mandatory = 1
           LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = rf.registration_id
          WHERE rf.registration_id = ?
          ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
        [uid],
      );
      const formIds: number[] = [];
      const notices: string[] = [];
      for (const row of rows) {
        const formId = Number(row.form_id);
        if (!formIds.includes(formId)) formIds.push(formId);
        if (Number(row.completed) !== 1) throw new Refused(501, "NOT_IN_BASELINE");
        if (row.field_id == null || notices.some((n) => n.startsWith(`Form ${formId} `))) continue;
        const stored = row.value == null ? undefined : decodeAnswer(row.field_type as FieldType, String(row.value));
        if (answerIsEmpty(stored)) {
          notices.push(
            `Form ${formId} (${String(row.form_name)}) was marked complete with empty mandatory fields; the first is ${String(row.field_id)} (${String(row.label)}).`,
          );
        }
      }
      answer = {
        success: true,
        msg: "Forms marked complete.",
        system_action: ["user_updated"],
        marked_complete: formIds.map(String),
        skipped: [],
        ...(notices.length > 0 ? { notices } : {}),
      };
    } else {
      const values = (body.doc ?? {}) as Row;
      const keys = Object.keys(values);
      // The named fields, whether the user holds their form, and the stored answers.
      const rows = await query(
        connection,
        `SELECT f.id, f.form_id, f.name, f.label, f.field_type, f.mandatory, f.choice_options, fv.value,
                rf.registration_id AS held
           FROM field f
           LEFT JOIN registration_form rf ON rf.form_id = f.form_id AND rf.registration_id = ?
           LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = ?
          WHERE f.project_id = ? AND (f.id IN (?) OR f.name IN (?))`,
        [uid, uid, groupId, keys, keys],
      );
      for (const key of keys) {
        const row = rows.find((r) => r.id === key || r.name === key);
        if (!row || row.held == null) throw new Refused(501, "NOT_IN_BASELINE");
        const field = {
          id: String(row.id),
          formId: Number(row.form_id),
          name: row.name == null ? null : String(row.name),
          label: String(row.label),
          fieldType: row.field_type as FieldType,
          mandatory: Number(row.mandatory) === 1,
          options: row.choice_options == null ? [] : (JSON.parse(String(row.choice_options)) as string[]),
        };
        const input = interpretFieldInput(key, field, values[key]);
        if (!input.accepted || input.encoded !== row.value) throw new Refused(501, "NOT_IN_BASELINE");
      }
      answer = { success: true, msg: "User updated.", system_action: ["user_updated"] };
    }
    const summary = await userSummary(connection, groupId, cloginId);
    await query(connection, "COMMIT");
    return { ...answer, ...envelopeOf(summary) };
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

/**
 * users add_email of one email object (6 statements with authentication): the registration locked
 * by the stamp of its updated_at first, so writers on one registrant queue instead of deadlocking
 * on the foreign keys' shared locks; the summary, the record, its event. A list answers 501.
 */
async function addEmail(db: Pool, body: Row, groupId: number, apiAccountId: number): Promise<unknown> {
  const cloginId = Number(body.clogin_id);
  const email = ((body.doc ?? {}) as Row).email_list as Row | undefined;
  if (!email || Array.isArray(email) || email.admin_id != null) throw new Refused(501, "NOT_IN_BASELINE");
  const text = (value: unknown) => (value == null || String(value).trim() === "" ? null : String(value).trim());
  const now = new Date();
  const connection = await db.getConnection();
  try {
    await query(connection, "START TRANSACTION");
    await query(connection, "UPDATE registration SET updated_at = ? WHERE project_id = ? AND person_id = ?", [
      now,
      groupId,
      cloginId,
    ]);
    const summary = await userSummary(connection, groupId, cloginId);
    await query(
      connection,
      `INSERT INTO email_record (registration_id, from_address, to_addresses, cc_addresses, bcc_addresses, subject, body,
                                 admin_id, recorded_at, origin, message_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, 'api', NULL)`,
      [summary.uid, text(email.from), text(email.to), text(email.cc), text(email.bcc), email.subject, email.body, now],
    );
    await query(
      connection,
      `INSERT INTO event (public_id, organization_id, group_id, type, data, actor, created_at)
       VALUES (?, (SELECT organization_id FROM project WHERE id = ?), ?, 'email.recorded', ?, ?, ?)`,
      [
        randomUUID(),
        groupId,
        groupId,
        JSON.stringify({ clogin_id: cloginId, to: text(email.to), subject: email.subject }),
        JSON.stringify({ type: "api_account", api_account_id: apiAccountId }),
        now,
      ],
    );
    await query(connection, "COMMIT");
    return { success: true, msg: "Emails added successfully", ...envelopeOf(summary) };
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

/** users get_user_list, first page, without excluded users (4 statements). */
async function userList(db: Pool, groupId: number): Promise<unknown> {
  const active = `(r.status_id IS NULL OR r.status_id NOT IN (SELECT id FROM status WHERE project_id = ? AND is_excluded = 1))`;
  // The listed registrations are the active parents and their active children: two buckets of
  // the project's counter slots, summed.
  const [totals] = await query(
    db,
    `SELECT SUM(parent_active_registrations) AS top_level,
            SUM(parent_active_registrations + child_active_registrations) AS total_users,
            SUM(parent_active_order_cents + child_active_order_cents) AS order_cents,
            SUM(parent_active_paid_cents + child_active_paid_cents) AS paid_cents
       FROM project_counter WHERE project_id = ?`,
    [groupId],
  );
  const page = summaries(
    await query(
      db,
      `${SUMMARY_SELECT} WHERE r.project_id = ? AND r.connected_to IS NULL AND ${active} ORDER BY r.uid LIMIT 51`,
      [groupId, groupId],
    ),
  );
  const parents = page.slice(0, 50);
  const children =
    parents.length === 0
      ? []
      : summaries(
          await query(
            db,
            `${SUMMARY_SELECT} WHERE r.project_id = ? AND r.connected_to IN (?) AND ${active} ORDER BY r.uid`,
            [groupId, parents.map((p) => p.cloginId), groupId],
          ),
        );
  const orderCents = Number(totals.order_cents);
  const paidCents = Number(totals.paid_cents);
  const totalUsers = Number(totals.total_users);
  return {
    success: true,
    msg: "User list.",
    total_users: Number(totals.top_level),
    records_per_page: 50,
    starting_position: 0,
    next_starting_position: page.length > 50 ? 50 : null,
    totals: {
      total_users: String(totalUsers),
      // Every listed record is active when excluded users are left out.
      total_active_users: String(totalUsers),
      total_order: formatCents(orderCents),
      total_paid: formatCents(paidCents),
      total_balance: formatCents(orderCents - paidCents),
    },
    users: parents.map(envelopeOf),
    children: children.map(envelopeOf),
  };
}

// The per-project counter row (one per project): registrations, order and paid cents per bucket.
const ALL_BUCKETS = [
  "parent_active",
  "parent_excluded",
  "child_active",
  "child_excluded",
  "orphan_active",
  "orphan_excluded",
];
const ACTIVE_BUCKETS = ["parent_active", "child_active", "orphan_active"];
const sumOfBuckets = (measure: string, buckets = ALL_BUCKETS) =>
  `COALESCE(SUM(${buckets.map((bucket) => `pc.${bucket}_${measure}`).join(" + ")}), 0)`;

/** projects get_project_list with archived projects and totals (2 statements). */
async function projectList(db: Pool, organizationId: number): Promise<unknown> {
  const rows = await query(
    db,
    `SELECT pr.id, pr.name, pr.currency, pr.created_at, pr.archived,
            ${sumOfBuckets("registrations")} AS total_users,
            ${sumOfBuckets("registrations", ACTIVE_BUCKETS)} AS active_users,
            ${sumOfBuckets("order_cents")} AS order_cents,
            ${sumOfBuckets("paid_cents")} AS paid_cents
       FROM project pr LEFT JOIN project_counter pc ON pc.project_id = pr.id
      WHERE pr.organization_id = ? GROUP BY pr.id, pr.name, pr.currency, pr.created_at, pr.archived ORDER BY pr.id`,
    [organizationId],
  );
  return {
    projects: rows.map((row) => {
      const order = Number(row.order_cents);
      const paid = Number(row.paid_cents);
      return {
        group_id: String(row.id),
        group_name: String(row.name),
        group_currency: String(row.currency),
        creation_date: formatUtcDateTime(row.created_at as Date),
        _excluded: Number(row.archived) === 1 ? "1" : "0",
        group_totals: {
          total_users: String(row.total_users),
          total_active_users: String(row.active_users),
          total_order: formatCents(order),
          total_paid: formatCents(paid),
          total_balance: formatCents(order - paid),
        },
      };
    }),
    success: true,
    only_archived: false,
    with_archived: true,
    with_group_totals: true,
  };
}

/** The nested user read of bench/run.ts, as regapi's GraphQL answers it (5 statements after authentication). */
async function nestedUser(db: Pool, groupId: number, cloginId: number): Promise<unknown> {
  const family = summaries(
    await query(
      db,
      `${SUMMARY_SELECT} WHERE r.project_id = ? AND (r.person_id = ? OR r.connected_to = ?) ORDER BY r.uid`,
      [groupId, cloginId, cloginId],
    ),
  );
  const user = family.find((member) => member.cloginId === cloginId);
  if (!user) throw new Refused(404, "USER_NOT_FOUND");
  const children = family.filter((member) => member.parentCloginId === cloginId);
  const uids = family.map((member) => member.uid);
  const formRows = await query(
    db,
    `SELECT rf.registration_id, rf.completed, fo.id AS form_id, fo.name AS form_name, f.id AS field_id, f.label
       FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
       LEFT JOIN field f ON f.form_id = fo.id AND rf.registration_id = ?
      WHERE rf.registration_id IN (?)
      ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
    [user.uid, uids],
  );
  const valueRows = await query(
    db,
    `SELECT v.value, f.id, f.field_type FROM field_value v JOIN field f ON f.id = v.field_id JOIN form fo ON fo.id = f.form_id
      WHERE v.registration_id = ? ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
    [user.uid],
  );
  const emailRows = await query(
    db,
    `SELECT subject FROM email_record WHERE registration_id = ? ORDER BY recorded_at, id`,
    [user.uid],
  );
  type FormEntry = {
    id: string;
    completed: boolean;
    form?: { name: string; fields: { identifier: string; label: string }[] };
  };
  const formsOf = (member: UserSummary, withFields: boolean) => {
    const forms: FormEntry[] = [];
    let current: number | null = null;
    for (const row of formRows) {
      if (Number(row.registration_id) !== member.uid) continue;
      if (row.form_id !== current) {
        current = row.form_id as number;
        const id = encodeNodeId("UserForm", { groupId, cloginId: member.cloginId, formId: current });
        const completed = Number(row.completed) === 1;
        forms.push(
          withFields ? { id, completed, form: { name: String(row.form_name), fields: [] } } : { id, completed },
        );
      }
      if (withFields && row.field_id != null) {
        forms.at(-1)!.form!.fields.push({ identifier: String(row.field_id), label: String(row.label) });
      }
    }
    return forms;
  };
  const userId = (member: UserSummary) => encodeNodeId("User", { groupId, cloginId: member.cloginId });
  return {
    data: {
      user: {
        id: userId(user),
        name: user.name,
        metaInfo: {
          totalForms: user.totalForms,
          totalOrder: formatCents(user.totalOrderCents),
          totalBalance: formatCents(user.totalBalanceCents),
          status: user.status ? { name: user.status.name } : null,
        },
        forms: formsOf(user, true),
        fieldValues: valueRows.map((row) => {
          const answer = decodeAnswer(row.field_type as FieldType, String(row.value));
          const choices = isChoiceType(row.field_type as FieldType) ? [answer].flat() : null;
          return { text: choices ? null : String(answer), choices, field: { identifier: String(row.id) } };
        }),
        emails: emailRows.map((row) => ({ subject: row.subject })),
        tags: user.tags.map((tag) => ({ id: encodeNodeId("Tag", { groupId, tagId: tag.id }), name: tag.name })),
        children: children.map((child) => ({
          id: userId(child),
          name: child.name,
          metaInfo: { totalForms: child.totalForms },
          forms: formsOf(child, false),
        })),
      },
    },
  };
}

/** The first page of a project's users with totalCount and two metaInfo members (2 statements after authentication). */
async function usersPage(db: Pool, groupId: number, first: number, withCount: boolean): Promise<unknown> {
  const rows = await query(
    db,
    `SELECT r.person_id,
            (SELECT COUNT(*) FROM registration_form rf WHERE rf.registration_id = r.uid) AS total_forms,
            (SELECT COALESCE(SUM(c.quantity * c.unit_price_cents), 0) FROM cart_line c WHERE c.registration_id = r.uid) AS order_cents
       FROM registration r WHERE r.project_id = ? ORDER BY r.uid LIMIT ?`,
    [groupId, first],
  );
  const [count] = withCount
    ? await query(db, `SELECT ${sumOfBuckets("registrations")} AS total FROM project_counter pc WHERE project_id = ?`, [
        groupId,
      ])
    : [null];
  return {
    data: {
      users: {
        ...(count ? { totalCount: Number(count.total) } : {}),
        edges: rows.map((row) => ({
          node: {
            cloginId: Number(row.person_id),
            metaInfo: { totalForms: Number(row.total_forms), totalOrder: formatCents(Number(row.order_cents)) },
          },
        })),
      },
    },
  };
}

// GraphQL-shaped answers end with a newline, as Apollo Server writes them.
function handler(work: (req: Request) => Promise<unknown>, options: { newline?: boolean } = {}) {
  return (req: Request, res: Response) => {
    work(req).then(
      (body) => (options.newline ? res.type("application/json").send(`${JSON.stringify(body)}\n`) : res.json(body)),
      (error: unknown) => {
        if (error instanceof Refused) res.status(error.status).json({ success: false, error_code: error.code });
        else res.status(500).json({ success: false, error_code: "INTERNAL" });
      },
    );
  };
}

/** The baseline app on a mysql2 pool (the caller owns the pool). */
export function createBaselineApp(db: Pool): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json());
  app.post(
    "/reg/api2/users/",
    handler(async (req) => {
      const body = req.body as Row;
      const groupId = Number(body.group_id);
      await authenticate(db, req, groupId);
      if (body.action === "update") return update(db, body, groupId);
      if (body.action === "get_info") {
        return {
          success: true,
          msg: "User info.",
          ...envelopeOf(await userSummary(db, groupId, Number(body.clogin_id))),
        };
      }
      if (body.action === "get_user_list") return userList(db, groupId);
      if (body.action === "add_email") return addEmail(db, body, groupId, Number(req.get("api-id")));
      throw new Refused(501, "NOT_IN_BASELINE");
    }),
  );
  app.post(
    "/reg/api2/projects/",
    handler(async (req) => {
      const body = req.body as Row;
      const caller = await authenticate(db, req, Number(body.group_id));
      if (body.action !== "get_project_list") throw new Refused(501, "NOT_IN_BASELINE");
      return projectList(db, caller.organizationId);
    }),
  );
  app.post(
    "/baseline/nested-user",
    handler(
      async (req) => {
        const { groupId, cloginId } = req.body as { groupId: number; cloginId: number };
        await authenticate(db, req, groupId);
        return nestedUser(db, groupId, cloginId);
      },
      { newline: true },
    ),
  );
  app.post(
    "/baseline/users-page",
    handler(
      async (req) => {
        const { groupId, first, withCount } = req.body as { groupId: number; first: number; withCount?: boolean };
        await authenticate(db, req, groupId);
        return usersPage(db, groupId, first, withCount !== false);
      },
      { newline: true },
    ),
  );
  return app;
}
