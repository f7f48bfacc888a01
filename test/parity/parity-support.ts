import type { Express } from "express";
import request from "supertest";
import type { DataSource } from "typeorm";
import { mapleHeaders, MAPLE, testFixture } from "../fixtures/test-fixture";
import { graphql } from "../graphql/graphql-client";
import { summarizeProblems } from "../../src/domain/problems";

// REST and GraphQL are two adapters over one domain: the same operation through either must
// write the same rows and fail with the same code. These helpers run both and normalize rows.

/** Pairs of identical users in the demo project, one per operation under test (a: REST, b: GraphQL). */
export const TWINS = {
  update: { rest: 102679001, graphql: 102679002 },
  mark: { rest: 102679003, graphql: 102679004 },
  email: { rest: 102679005, graphql: 102679006 },
  markAll: { rest: 102679007, graphql: 102679008 },
} as const;

export function parityFixture(): unknown {
  const fixture = testFixture() as { organizations: { projects: { id: number; users: unknown[] }[] }[] };
  const project = fixture.organizations[0].projects.find((p) => p.id === MAPLE.groupId)!;
  for (const pair of Object.values(TWINS)) {
    for (const cloginId of [pair.rest, pair.graphql]) {
      project.users.push({
        cloginId,
        username: `twin-${cloginId}@maple.test`,
        mainEmail: `twin-${cloginId}@maple.test`,
        password: "twin-secret",
        firstName: "Twin",
        lastName: "Camper",
        applicationDate: "2026-04-01 08:00:00",
        forms: [301, 303, 304],
        values: { f_301_3: ["S"] },
        statusId: 9,
        tagIds: [4],
      });
    }
  }
  return fixture;
}

export async function rest(
  app: Express,
  endpoint: "users" | "statuses" | "projects",
  body: Record<string, unknown>,
  headers: Record<string, string> = mapleHeaders,
) {
  const response = await request(app)
    .post(`/reg/api2/${endpoint}/`)
    .set(headers)
    .set("Content-Type", "application/json")
    .send(body);
  return { status: response.status, body: response.body as Record<string, unknown> };
}

/** The code a REST failure reports, in GraphQL's vocabulary (VALIDATION_FAILED ↔ BAD_USER_INPUT). */
export function restCodeAsGraphql(body: Record<string, unknown>): string {
  const code = String(body.error_code);
  return code === "VALIDATION_FAILED" ? "BAD_USER_INPUT" : code;
}

/** A failure as both transports report it: code, top-level message, and problems with rendered paths. */
export interface ReportedFailure {
  code: string;
  message: string;
  problems: { path: string; message: string }[];
  /** A GraphQL mutation's refused input, as its payload answered it. */
  inPayload?: PayloadProblem[];
}

/** The REST failure, its code in GraphQL's vocabulary (VALIDATION_FAILED ↔ BAD_USER_INPUT). */
export function restFailure(body: Record<string, unknown>): ReportedFailure {
  return {
    code: restCodeAsGraphql(body),
    message: String(body.msg),
    problems: (body.errors as ReportedFailure["problems"] | undefined) ?? [],
  };
}

/** What a mutation selects of its payload's problems; an operation under test selects it. */
export const PROBLEMS = "problems { field value reason message }";

interface PayloadProblem {
  field: string;
  value: string | null;
  reason: string;
  message: string;
}

/**
 * The failure of the operation: its first GraphQL error, or, for a mutation whose input was
 * refused, the problems of its payload (code BAD_USER_INPUT, the message REST builds from the same
 * problems). A refused payload holds nothing but its problems: every other member null or empty.
 */
export async function graphqlFailure(
  app: Express,
  query: string,
  variables: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<ReportedFailure> {
  const response = await graphql(app, query, variables, headers);
  const error = response.errors?.[0];
  if (!error) {
    const data = (response.body as { data?: Record<string, Record<string, unknown> | null> }).data ?? {};
    const payload = Object.values(data)[0];
    const problems = (payload?.problems ?? []) as PayloadProblem[];
    if (!payload || problems.length === 0)
      throw new Error(`expected a GraphQL error or refused input, got ${JSON.stringify(response.body)}`);
    for (const [member, value] of Object.entries(payload)) {
      if (member !== "problems" && value !== null && !(Array.isArray(value) && value.length === 0))
        throw new Error(`a refused input answered ${member}: ${JSON.stringify(value)}`);
    }
    const rendered = problems.map((problem) => ({ path: problem.field, message: problem.message }));
    return { code: "BAD_USER_INPUT", message: summarizeProblems(rendered), problems: rendered, inPayload: problems };
  }
  return {
    code: String(error.extensions?.code),
    message: error.message,
    problems: (error.extensions?.problems as ReportedFailure["problems"] | undefined) ?? [],
  };
}

/** The top-level message without its leading rendered path (`doc.color must …` → `must …`). */
export function afterPath(message: string, path: string): string {
  if (!message.startsWith(`${path} `)) throw new Error(`${JSON.stringify(message)} does not start with ${path}`);
  return message.slice(path.length + 1);
}

type Row = Record<string, unknown>;

const presence = (value: unknown) => (value == null ? null : "set");

/**
 * Everything the operations under test write for one registration, without ids and times (which
 * differ between two runs by nature) and with the subject's own address replaced by a placeholder.
 */
export async function registrationRows(ds: DataSource, groupId: number, cloginId: number) {
  const [registration]: Row[] = await ds.query(
    "SELECT uid, project_id, person_id, connected_to, status_id, star, application_date, assigned_admin_id FROM registration WHERE project_id = ? AND person_id = ?",
    [groupId, cloginId],
  );
  if (!registration) throw new Error(`no registration of ${cloginId} in ${groupId}`);
  const uid = Number(registration.uid);
  const [person]: Row[] = await ds.query(
    "SELECT username, password_hash, main_email, first_name, last_name, org_name FROM person WHERE id = ?",
    [cloginId],
  );
  const own = [String(person.username), String(person.main_email)].filter((text) => text && text !== "null");
  const anonymize = (value: unknown) => {
    if (typeof value !== "string") return value;
    return own.reduce((text, address) => text.split(address).join("<own address>"), value);
  };
  const rows = async (sql: string) =>
    ((await ds.query(sql, [uid])) as Row[]).map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, anonymize(v)])),
    );

  return {
    registration: {
      projectId: Number(registration.project_id),
      connectedTo: registration.connected_to,
      statusId: registration.status_id == null ? null : Number(registration.status_id),
      star: Number(registration.star),
      applicationDate: presence(registration.application_date),
      assignedAdminId: registration.assigned_admin_id,
    },
    person: {
      username: anonymize(person.username),
      mainEmail: anonymize(person.main_email),
      passwordHash: String(person.password_hash ?? "").startsWith("scrypt$") ? "scrypt" : person.password_hash,
      firstName: person.first_name,
      lastName: person.last_name,
      orgName: person.org_name,
    },
    forms: (
      await rows(
        "SELECT form_id, completed, completed_at, submitted_at, added_at FROM registration_form WHERE registration_id = ? ORDER BY form_id",
      )
    ).map((row) => ({
      formId: Number(row.form_id),
      completed: Number(row.completed),
      completedAt: presence(row.completed_at),
      submittedAt: presence(row.submitted_at),
      addedAt: presence(row.added_at),
    })),
    values: await rows("SELECT field_id, value FROM field_value WHERE registration_id = ? ORDER BY field_id"),
    tags: await rows("SELECT tag_id FROM registration_tag WHERE registration_id = ? ORDER BY tag_id"),
    cart: (
      await rows(
        "SELECT product_id, quantity, unit_price_cents FROM cart_line WHERE registration_id = ? ORDER BY product_id, quantity",
      )
    ).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))),
    emails: (
      await rows(
        "SELECT from_address, to_addresses, cc_addresses, bcc_addresses, subject, body, admin_id, origin, recorded_at FROM email_record WHERE registration_id = ? ORDER BY origin, subject, id",
      )
    ).map(({ recorded_at, admin_id, ...row }): Row => ({
      ...row,
      adminId: admin_id == null ? null : Number(admin_id),
      recordedAt: presence(recorded_at),
    })),
    outbox: await rows(
      "SELECT to_addresses, subject, body, state FROM outbox_email WHERE registration_id = ? ORDER BY subject, id",
    ),
    triggersFired: (
      await rows("SELECT trigger_id FROM trigger_firing WHERE registration_id = ? ORDER BY trigger_id")
    ).map((row) => Number(row.trigger_id)),
  };
}

/** Row counts of every table the operations write, to prove a failed call wrote nothing. */
export async function tableCounts(ds: DataSource): Promise<Record<string, number>> {
  const tables = [
    "person",
    "registration",
    "registration_form",
    "field_value",
    "cart_line",
    "email_record",
    "outbox_email",
    "trigger_firing",
    "status",
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await ds.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  return counts;
}
