import { z } from "zod";
import { formatCents } from "../../common/money";
import {
  erasePersonRows,
  lockPersonRegistrations,
  readPersonHoldings,
  readPersonOfOrganization,
  readPersonRegistrations,
  type ErasedCounts,
  type PersonHoldings,
  type PersonRegistrationRow,
} from "../../data/person-data.data";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import type { RequestContext } from "../context";
import { DomainError } from "../errors";
import { recordEvents } from "../events/record-event";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { noteRegistrationUid } from "../unit-of-work";

// A person's data rights (docs/data-rights.md): everything the organization holds about one
// person (clogin_id) across its projects, exported as one JSON document, or erased in one
// transaction. Both act organization-wide, so they need a key not limited to projects and the
// scope persons.export / persons.erase (a `read` key does not export: the document is everything).

/** `groupId`: any project of the caller's organization (the legacy envelope names one); `cloginId`: the person. */
export const PersonCommand = z.object({ groupId: integerId, cloginId: integerId });
export type PersonCommand = z.output<typeof PersonCommand>;

/** The operator's command line names no project: `groupId` null acts on the organization of the principal. */
type PersonTarget = { groupId: number | null; cloginId: number };

const targetOf = (draft: CommandDraft<typeof PersonCommand> | { groupId: null; cloginId: unknown }): PersonTarget =>
  draft.groupId === null
    ? { groupId: null, cloginId: parseCommand(PersonCommand.pick({ cloginId: true }), draft).cloginId }
    : parseCommand(PersonCommand, draft);

/** Format of the export document; a consumer can tell a later, changed format by it. */
export const PERSON_EXPORT_FORMAT = "regapi.person-export/1";

const notAPerson = (cloginId: number) =>
  new DomainError("NOT_FOUND", `Person ${cloginId} is not a person of your organization.`);

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The export document: the person, each registration with its field values, forms, cart,
 * payments, emails (recorded and sent), tags and comments, and every stored event about the
 * person. Never a password hash or a token hash (sessions are counted). One transaction, so the
 * document is one consistent read. Throws FORBIDDEN or NOT_FOUND.
 */
export async function exportPerson(
  ctx: RequestContext,
  draft: CommandDraft<typeof PersonCommand> | { groupId: null; cloginId: unknown },
): Promise<Record<string, unknown>> {
  const cmd = targetOf(draft);
  const { organizationId } = authorize(ctx, "persons.export", "organization");
  return inTransaction(ctx, "persons.export", async (tx) => {
    if (cmd.groupId !== null) await resolveOwnedProject(tx, cmd.groupId);
    const person = await readPersonOfOrganization(tx.em, cmd.cloginId, organizationId);
    if (!person) throw notAPerson(cmd.cloginId);
    const registrations = await readPersonRegistrations(tx.em, cmd.cloginId);
    const held = await readPersonHoldings(tx.em, cmd.cloginId, organizationId);
    return {
      format: PERSON_EXPORT_FORMAT,
      exported_at: new Date().toISOString(),
      organization_id: organizationId,
      clogin_id: person.id,
      person: {
        username: person.username,
        main_email: person.main_email,
        first_name: person.first_name,
        last_name: person.last_name,
        org_name: person.org_name,
      },
      registrations: registrations.map((r) => registrationDocument(r, held)),
      events: held.events.map((e) => ({
        id: e.public_id,
        type: e.type,
        group_id: e.group_id,
        created_at: iso(e.created_at),
        data: JSON.parse(e.data) as unknown,
      })),
      active_sessions_and_login_tokens: held.sessions,
    };
  });
}

type Held<K extends keyof PersonHoldings> = PersonHoldings[K] extends readonly (infer Row)[] ? Row : never;

/** One registration in the export document: its own columns, then what it holds. */
function registrationDocument(r: PersonRegistrationRow, held: PersonHoldings): Record<string, unknown> {
  const of = <Row extends { registration_id: number }>(rows: Row[]) =>
    rows.filter((row) => row.registration_id === r.uid);
  return {
    uid: r.uid,
    group_id: r.group_id,
    group_name: r.group_name,
    connected_to: r.connected_to,
    status: r.status_id === null ? null : { status_id: r.status_id, name: r.status_name },
    star: r.star,
    application_date: iso(r.application_date),
    assigned_admin_id: r.assigned_admin_id,
    utm: {
      campaign: r.utm_campaign,
      content: r.utm_content,
      id: r.utm_id,
      medium: r.utm_medium,
      source: r.utm_source,
      term: r.utm_term,
    },
    field_values: of(held.fieldValues).map((v) => ({
      field_id: v.field_id,
      label: v.label,
      value: v.value,
      updated_at: iso(v.updated_at),
    })),
    forms: of(held.forms).map(formDocument),
    cart: of(held.cart).map(cartLineDocument),
    payments: of(held.payments).map((p) => ({
      payment_id: p.id,
      amount: formatCents(p.amount_cents),
      paid_at: iso(p.paid_at),
      method: p.method,
      note: p.note,
    })),
    emails: of(held.emails).map(emailDocument),
    emails_sent: of(held.outboxEmails).map(sentEmailDocument),
    tags: of(held.tags).map((t) => ({ tag_id: t.tag_id, name: t.name })),
    comments: of(held.comments).map((c) => ({
      comment_id: c.id,
      admin_id: c.admin_id,
      body: c.body,
      created_at: iso(c.created_at),
    })),
  };
}

const formDocument = (f: Held<"forms">) => ({
  form_id: f.form_id,
  name: f.name,
  completed: f.completed,
  completed_at: iso(f.completed_at),
  submitted_at: iso(f.submitted_at),
  added_at: iso(f.added_at),
});

const cartLineDocument = (c: Held<"cart">) => ({
  cart_id: c.id,
  p_id: c.product_id,
  product_name: c.product_name,
  quantity: c.quantity,
  unit_price: formatCents(c.unit_price_cents),
  created_at: iso(c.created_at),
  remark: c.remark,
  recurring_start_date: iso(c.recurring_start_date),
});

/** An email recorded about the registration (received, or sent from elsewhere). */
const emailDocument = (e: Held<"emails">) => ({
  email_id: e.id,
  from: e.from_address,
  to: e.to_addresses,
  cc: e.cc_addresses,
  bcc: e.bcc_addresses,
  subject: e.subject,
  body: e.body,
  admin_id: e.admin_id,
  recorded_at: iso(e.recorded_at),
  origin: e.origin,
  message_id: e.message_id,
});

/** An email sent to the registration through the outbox, with its delivery state. */
const sentEmailDocument = (e: Held<"outboxEmails">) => ({
  to: e.to_addresses,
  subject: e.subject,
  body: e.body,
  state: e.state,
  message_id: e.message_id,
  created_at: iso(e.created_at),
  sent_at: iso(e.sent_at),
});

export interface PersonErasure {
  cloginId: number;
  /** The projects the person was registered in: each got a person.erased event. */
  groupIds: number[];
  erased: ErasedCounts;
}

/**
 * Erases a person in one transaction: field values, forms, emails recorded and sent, tags,
 * comments, sessions and login tokens are removed; the person's name, username, email and
 * password hash, the registrations' UTM data and the free texts of cart lines and payments are
 * overwritten with NULL; stored events about the person are reduced to its id; stored
 * Idempotency-Key answers that mention it are removed. Cart lines and payments stay with their
 * amounts (the organization's accounts must still add up), attached to a registration that no
 * longer says whose it was. A `person.erased` event per project carries only ids. Throws
 * FORBIDDEN or NOT_FOUND; a failed erasure changes nothing.
 */
export async function erasePerson(
  ctx: RequestContext,
  draft: CommandDraft<typeof PersonCommand> | { groupId: null; cloginId: unknown },
): Promise<PersonErasure> {
  const cmd = targetOf(draft);
  const { organizationId } = authorize(ctx, "persons.erase", "organization");
  return inTransaction(ctx, "persons.erase", async (tx) => {
    if (cmd.groupId !== null) await resolveOwnedProject(tx, cmd.groupId);
    // The person's registrations first, then the person (docs/locking.md): every write to a
    // registration locks the registration before its person, so the other order could deadlock.
    await lockPersonRegistrations(tx.em, cmd.cloginId);
    const person = await readPersonOfOrganization(tx.em, cmd.cloginId, organizationId, { lock: true });
    if (!person) throw notAPerson(cmd.cloginId);
    const registrations = await readPersonRegistrations(tx.em, cmd.cloginId);
    for (const r of registrations) noteRegistrationUid(tx.em, r.group_id, cmd.cloginId, r.uid);
    const erased = await erasePersonRows(
      tx.em,
      cmd.cloginId,
      organizationId,
      JSON.stringify({ clogin_id: cmd.cloginId, erased: true }),
      answerNeedles(person, cmd.cloginId),
    );
    const groupIds = [...new Set(registrations.map((r) => r.group_id))];
    const erasedAt = new Date();
    // A person registered nowhere is announced in the project the call named (none from the CLI).
    const announced =
      groupIds.length > 0 ? registrations : cmd.groupId === null ? [] : [{ group_id: cmd.groupId, uid: null }];
    recordEvents(
      tx.em,
      announced.map((r) => ({
        type: "person.erased" as const,
        groupId: r.group_id,
        data: { clogin_id: cmd.cloginId, uid: r.uid, erased_at: erasedAt.toISOString() },
      })),
      erasedAt,
    );
    return { cloginId: cmd.cloginId, groupIds, erased };
  });
}

/**
 * Texts whose presence in a stored Idempotency-Key answer ties it to the person: its clogin_id as
 * the answers write it, and its names and addresses as JSON writes them inside a string.
 */
function answerNeedles(
  person: {
    username: string | null;
    main_email: string | null;
    first_name: string | null;
    last_name: string | null;
    org_name: string | null;
  },
  cloginId: number,
): string[] {
  const texts = [person.username, person.main_email, person.first_name, person.last_name, person.org_name]
    .filter((text): text is string => !!text && text.trim().length > 0)
    .map((text) => JSON.stringify(text).slice(1, -1));
  return [`"clogin_id":"${cloginId}"`, `"clogin_id":${cloginId},`, `"clogin_id":${cloginId}}`, ...texts];
}
