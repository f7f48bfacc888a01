import type { EntityManager } from "typeorm";
import { executeWrite } from "../db/insert-rows";
import { chunked } from "./batch";
import { writeSearchDocuments } from "./person-search.data";
import { EMAIL_SHAPE } from "./email-history.data";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

// Everything held about one person (a clogin_id) of an organization, read for an export and
// removed or anonymized for an erasure (docs/data-rights.md). Every statement selects the
// person's registrations by `person_id` in a subquery, so an export or an erasure costs the same
// number of statements however many projects the person is registered in.

/** The person's registrations, as a subquery bound to one parameter: the person id. */
const OWN_REGISTRATIONS = `SELECT uid FROM registration WHERE person_id = ?`;

const PERSON = {
  id: "int",
  username: "textOrNull",
  main_email: "textOrNull",
  first_name: "textOrNull",
  last_name: "textOrNull",
  org_name: "textOrNull",
} as const;
export type PersonDataRow = RowOf<typeof PERSON>;

/** The person row (never its password hash) when it is a person of the organization. */
export async function readPersonOfOrganization(
  em: EntityManager,
  personId: number,
  organizationId: number,
  options: { lock?: boolean } = {},
): Promise<PersonDataRow | null> {
  const lock = options.lock && em.connection.options.type !== "better-sqlite3" ? " FOR UPDATE" : "";
  const [row] = await selectRows(
    em,
    PERSON,
    `SELECT id, username, main_email, first_name, last_name, org_name
       FROM person WHERE id = ? AND organization_id = ?${lock}`,
    [personId, organizationId],
  );
  return row ?? null;
}

/**
 * Locks the person's registrations (MySQL/MariaDB; SQLite runs one transaction at a time): a write
 * to one of them waits for the erasure and then finds nothing of the person, instead of recording
 * an event the erasure's read of the events did not see.
 */
export async function lockPersonRegistrations(em: EntityManager, personId: number): Promise<void> {
  if (em.connection.options.type === "better-sqlite3") return;
  await selectRows(em, { uid: "int" }, `SELECT uid FROM registration WHERE person_id = ? ORDER BY uid FOR UPDATE`, [
    personId,
  ]);
}

const REGISTRATION = {
  uid: "int",
  group_id: "int",
  group_name: "text",
  connected_to: "intOrNull",
  status_id: "intOrNull",
  status_name: "textOrNull",
  star: "flag",
  application_date: "date",
  assigned_admin_id: "intOrNull",
  utm_campaign: "textOrNull",
  utm_content: "textOrNull",
  utm_id: "textOrNull",
  utm_medium: "textOrNull",
  utm_source: "textOrNull",
  utm_term: "textOrNull",
} as const;
export type PersonRegistrationRow = RowOf<typeof REGISTRATION>;

export function readPersonRegistrations(em: EntityManager, personId: number): Promise<PersonRegistrationRow[]> {
  return selectRows(
    em,
    REGISTRATION,
    `SELECT r.uid, r.project_id AS group_id, p.name AS group_name, r.connected_to, r.status_id,
            s.name AS status_name, r.star, r.application_date, r.assigned_admin_id, r.utm_campaign,
            r.utm_content, r.utm_id, r.utm_medium, r.utm_source, r.utm_term
       FROM registration r
       JOIN project p ON p.id = r.project_id
       LEFT JOIN status s ON s.id = r.status_id
      WHERE r.person_id = ?
      ORDER BY r.uid`,
    [personId],
  );
}

const FIELD_VALUE = {
  registration_id: "int",
  field_id: "text",
  label: "textOrNull",
  value: "text",
  updated_at: "date",
} as const;
const FORM_STATE = {
  registration_id: "int",
  form_id: "int",
  name: "textOrNull",
  completed: "flag",
  completed_at: "dateOrNull",
  submitted_at: "dateOrNull",
  added_at: "date",
} as const;
const CART_LINE = {
  id: "int",
  registration_id: "int",
  product_id: "int",
  product_name: "textOrNull",
  quantity: "int",
  unit_price_cents: "int",
  created_at: "date",
  remark: "textOrNull",
  recurring_start_date: "dateOrNull",
} as const;
const PAYMENT = {
  id: "int",
  registration_id: "int",
  amount_cents: "int",
  paid_at: "date",
  method: "textOrNull",
  note: "textOrNull",
} as const;
// The email history's own columns: its shape without the delivery state, which email-history.data.ts
// joins from the outbox and the export lists as outbox emails of their own.
const { delivery_status: _deliveryStatus, delivery_attempts: _deliveryAttempts, ...EMAIL } = EMAIL_SHAPE;
const OUTBOX_EMAIL = {
  id: "int",
  registration_id: "int",
  to_addresses: "text",
  subject: "text",
  body: "text",
  state: "text",
  message_id: "textOrNull",
  created_at: "date",
  sent_at: "dateOrNull",
} as const;
const TAG = { registration_id: "int", tag_id: "int", name: "textOrNull" } as const;
const COMMENT = {
  id: "int",
  registration_id: "int",
  admin_id: "intOrNull",
  body: "text",
  created_at: "date",
} as const;
const EVENT = { public_id: "text", group_id: "int", type: "text", data: "text", created_at: "date" } as const;

export interface PersonHoldings {
  fieldValues: RowOf<typeof FIELD_VALUE>[];
  forms: RowOf<typeof FORM_STATE>[];
  cart: RowOf<typeof CART_LINE>[];
  payments: RowOf<typeof PAYMENT>[];
  emails: RowOf<typeof EMAIL>[];
  outboxEmails: RowOf<typeof OUTBOX_EMAIL>[];
  tags: RowOf<typeof TAG>[];
  comments: RowOf<typeof COMMENT>[];
  events: RowOf<typeof EVENT>[];
  /** Registrant sessions and login tokens: only how many, their hashes are no one's data. */
  sessions: number;
}

/** What the person's registrations hold, table by table (one statement each). */
export async function readPersonHoldings(
  em: EntityManager,
  personId: number,
  organizationId: number,
): Promise<PersonHoldings> {
  const own = [personId];
  return {
    ...(await readFormsHeld(em, own)),
    ...(await readAccountsHeld(em, own)),
    ...(await readEmailsHeld(em, own)),
    ...(await readNotesHeld(em, own)),
    events: await readEventsAbout(em, personId, organizationId),
    sessions: await countSessions(em, personId),
  };
}

/** `own`: the parameters of OWN_REGISTRATIONS (the person's id). */
type Own = number[];

/** The registrations' field values and form states. */
async function readFormsHeld(em: EntityManager, own: Own): Promise<Pick<PersonHoldings, "fieldValues" | "forms">> {
  const fieldValues = await selectRows(
    em,
    FIELD_VALUE,
    `SELECT v.registration_id, v.field_id, f.label, v.value, v.updated_at
       FROM field_value v LEFT JOIN field f ON f.id = v.field_id
      WHERE v.registration_id IN (${OWN_REGISTRATIONS}) ORDER BY v.registration_id, v.field_id`,
    own,
  );
  const forms = await selectRows(
    em,
    FORM_STATE,
    `SELECT rf.registration_id, rf.form_id, f.name, rf.completed, rf.completed_at, rf.submitted_at, rf.added_at
       FROM registration_form rf LEFT JOIN form f ON f.id = rf.form_id
      WHERE rf.registration_id IN (${OWN_REGISTRATIONS}) ORDER BY rf.registration_id, rf.form_id`,
    own,
  );
  return { fieldValues, forms };
}

/** The registrations' cart lines and payments. */
async function readAccountsHeld(em: EntityManager, own: Own): Promise<Pick<PersonHoldings, "cart" | "payments">> {
  const cart = await selectRows(
    em,
    CART_LINE,
    `SELECT c.id, c.registration_id, c.product_id, pr.name AS product_name, c.quantity, c.unit_price_cents,
            c.created_at, c.remark, c.recurring_start_date
       FROM cart_line c LEFT JOIN product pr ON pr.id = c.product_id
      WHERE c.registration_id IN (${OWN_REGISTRATIONS}) ORDER BY c.id`,
    own,
  );
  const payments = await selectRows(
    em,
    PAYMENT,
    `SELECT id, registration_id, amount_cents, paid_at, method, note
       FROM payment WHERE registration_id IN (${OWN_REGISTRATIONS}) ORDER BY id`,
    own,
  );
  return { cart, payments };
}

/** The emails recorded about the registrations and those sent to them through the outbox. */
async function readEmailsHeld(em: EntityManager, own: Own): Promise<Pick<PersonHoldings, "emails" | "outboxEmails">> {
  const emails = await selectRows(
    em,
    EMAIL,
    `SELECT id, registration_id, from_address, to_addresses, cc_addresses, bcc_addresses, subject, body,
            admin_id, recorded_at, origin, message_id
       FROM email_record WHERE registration_id IN (${OWN_REGISTRATIONS}) ORDER BY id`,
    own,
  );
  const outboxEmails = await selectRows(
    em,
    OUTBOX_EMAIL,
    `SELECT id, registration_id, to_addresses, subject, body, state, message_id, created_at, sent_at
       FROM outbox_email WHERE registration_id IN (${OWN_REGISTRATIONS}) ORDER BY id`,
    own,
  );
  return { emails, outboxEmails };
}

/** The administrators' tags and comments on the registrations. */
async function readNotesHeld(em: EntityManager, own: Own): Promise<Pick<PersonHoldings, "tags" | "comments">> {
  const tags = await selectRows(
    em,
    TAG,
    `SELECT rt.registration_id, rt.tag_id, t.name
       FROM registration_tag rt LEFT JOIN tag t ON t.id = rt.tag_id
      WHERE rt.registration_id IN (${OWN_REGISTRATIONS}) ORDER BY rt.registration_id, rt.tag_id`,
    own,
  );
  const comments = await selectRows(
    em,
    COMMENT,
    `SELECT id, registration_id, admin_id, body, created_at
       FROM admin_comment WHERE registration_id IN (${OWN_REGISTRATIONS}) ORDER BY id`,
    own,
  );
  return { tags, comments };
}

/** The organization's stored events about the person. */
function readEventsAbout(
  em: EntityManager,
  personId: number,
  organizationId: number,
): Promise<PersonHoldings["events"]> {
  return selectRows(
    em,
    EVENT,
    `SELECT public_id, group_id, type, data, created_at FROM event
      WHERE organization_id = ? AND (data LIKE ? OR data LIKE ?) ORDER BY id`,
    [organizationId, ...eventPatterns(personId)],
  );
}

/** How many registrant sessions and login tokens the registrations have. */
async function countSessions(em: EntityManager, personId: number): Promise<number> {
  const [sessions] = await selectRows(
    em,
    { n: "int" },
    `SELECT (SELECT COUNT(*) FROM registrant_session WHERE registration_id IN (${OWN_REGISTRATIONS}))
          + (SELECT COUNT(*) FROM login_token WHERE registration_id IN (${OWN_REGISTRATIONS})) AS n`,
    [personId, personId],
  );
  return sessions.n;
}

/**
 * LIKE patterns of an event about the person: every event's data starts with its clogin_id
 * (`{"clogin_id":123,…}`), written by JSON.stringify without spaces. Both ends are anchored so
 * 123 does not match 1234.
 */
const eventPatterns = (personId: number) => [`{"clogin_id":${personId},%`, `{"clogin_id":${personId}}`];

/** What an erasure removed or anonymized, by table (counts of rows). */
export interface ErasedCounts {
  fieldValues: number;
  forms: number;
  emails: number;
  outboxEmails: number;
  tags: number;
  comments: number;
  sessions: number;
  triggerFirings: number;
  cartLinesAnonymized: number;
  paymentsAnonymized: number;
  eventsScrubbed: number;
  idempotencyAnswersRemoved: number;
}

/**
 * Removes or overwrites, in the caller's transaction, everything that identifies the person. The
 * person and registration rows stay as empty shells (ids, project, status, dates) because the
 * cart lines and payments that hold the organization's accounts hang from them; those keep their
 * amounts, products and dates, and lose their free texts. `scrubbedEventData` replaces the data
 * of every stored event about the person; `answerNeedles` are the texts whose stored
 * Idempotency-Key answers are removed.
 */
export async function erasePersonRows(
  em: EntityManager,
  personId: number,
  organizationId: number,
  scrubbedEventData: string,
  answerNeedles: readonly string[],
): Promise<ErasedCounts> {
  const own = [personId];
  const remove = async (table: string) =>
    (await executeWrite(em, `DELETE FROM ${table} WHERE registration_id IN (${OWN_REGISTRATIONS})`, own)).affected;
  const counts: ErasedCounts = {
    fieldValues: await remove("field_value"),
    forms: await remove("registration_form"),
    emails: await remove("email_record"),
    outboxEmails: await remove("outbox_email"),
    tags: await remove("registration_tag"),
    comments: await remove("admin_comment"),
    sessions: (await remove("registrant_session")) + (await remove("login_token")),
    triggerFirings: await remove("trigger_firing"),
    cartLinesAnonymized: (
      await executeWrite(em, `UPDATE cart_line SET remark = NULL WHERE registration_id IN (${OWN_REGISTRATIONS})`, own)
    ).affected,
    paymentsAnonymized: (
      await executeWrite(em, `UPDATE payment SET note = NULL WHERE registration_id IN (${OWN_REGISTRATIONS})`, own)
    ).affected,
    eventsScrubbed: await scrubEvents(em, personId, organizationId, scrubbedEventData),
    idempotencyAnswersRemoved: await removeStoredAnswers(em, organizationId, answerNeedles),
  };
  await executeWrite(
    em,
    `UPDATE registration SET utm_campaign = NULL, utm_content = NULL, utm_id = NULL, utm_medium = NULL,
            utm_source = NULL, utm_term = NULL
      WHERE person_id = ?`,
    own,
  );
  await executeWrite(
    em,
    `UPDATE person SET username = NULL, password_hash = NULL, main_email = NULL, first_name = NULL,
            last_name = NULL, org_name = NULL
      WHERE id = ? AND organization_id = ?`,
    [personId, organizationId],
  );
  // The registrations stay, found by no search any more.
  await writeSearchDocuments(em, { persons: [personId] });
  return counts;
}

/** `text` as a LIKE operand matching itself anywhere, with `!` as the escape character. */
const containing = (text: string) => `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/**
 * Idempotency-Key answers of the organization's API accounts that mention the person: the stored
 * answer of an update holds its user_info. Removing one only means a repeat of that request runs
 * again instead of being replayed.
 */
async function removeStoredAnswers(
  em: EntityManager,
  organizationId: number,
  needles: readonly string[],
): Promise<number> {
  if (needles.length === 0) return 0;
  const matches = needles.map(() => `response_body LIKE ? ESCAPE '!'`).join(" OR ");
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM idempotency_key
      WHERE api_account_id IN (SELECT id FROM api_account WHERE organization_id = ?) AND (${matches})`,
    [organizationId, ...needles.map(containing)],
  );
  return writeByIds(em, `DELETE FROM idempotency_key WHERE id IN`, [], rows);
}

/**
 * Replaces the data of the stored events about the person. Found by a plain read first, then
 * written by primary key: an UPDATE whose WHERE scans the event table would, on InnoDB, lock every
 * row it scanned until the erasure commits, and every write of the organization records events.
 */
async function scrubEvents(
  em: EntityManager,
  personId: number,
  organizationId: number,
  scrubbedData: string,
): Promise<number> {
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM event WHERE organization_id = ? AND (data LIKE ? OR data LIKE ?)`,
    [organizationId, ...eventPatterns(personId)],
  );
  return writeByIds(em, `UPDATE event SET data = ? WHERE id IN`, [scrubbedData], rows);
}

/** Runs `statement (ids…)` over the rows' ids, READ_CHUNK at a time; the rows it changed. */
async function writeByIds(
  em: EntityManager,
  statement: string,
  leading: readonly unknown[],
  rows: readonly { id: number }[],
): Promise<number> {
  let affected = 0;
  await chunked(
    rows.map((row) => row.id),
    async (ids) => {
      const result = await executeWrite(em, `${statement} (${sqlPlaceholders(ids.length)})`, [...leading, ...ids]);
      affected += result.affected;
    },
  );
  return affected;
}
