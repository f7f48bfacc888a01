import request from "supertest";
import type { DataSource } from "typeorm";
import { mapleHeaders, testFixture } from "../fixtures/test-fixture";
import type { TestApp } from "../support/test-app";

// Shared by the users-*.test.ts files: an extra project for the users rules ("Lab", inside the
// demo organization so the demo API account reaches it), the response-shape checks and a
// snapshot of every table a users call may write.

export const LAB = {
  groupId: 100909080,
  ann: 700001,
  bob: 700002,
  cy: 700003,
  kid: 700004,
  dee: 700006,
  familyGroupId: 100909083,
  products: { kit: 81, extra: 82 },
  admins: { owner: 511, managerElsewhere: 512, staff: 513, viewer: 514 },
} as const;

export const LAB_PROJECT = {
  id: LAB.groupId,
  name: "Lab",
  currency: "USD",
  createdAt: "2026-04-01 08:00:00",
  products: [
    { id: LAB.products.kit, name: "Kit", price: "12.50" },
    { id: LAB.products.extra, name: "Extra", price: "5.00" },
  ],
  forms: [
    {
      id: 501,
      name: "Profile",
      mandatory: true,
      fields: [
        { id: "f_501_1", name: "first_name", label: "First name", type: "text", mandatory: true },
        { id: "f_501_2", name: "last_name", label: "Last name", type: "text" },
        { id: "f_501_3", label: "Age", type: "number" },
        { id: "f_501_4", name: "contact_email", label: "Contact email", type: "email" },
        { id: "f_501_5", label: "Birth date", type: "date" },
        { id: "f_501_6", label: "Phone", type: "phone" },
        { id: "f_501_7", label: "Size", type: "single_choice", options: ["S", "M", "L"] },
        {
          id: "f_501_8",
          label: "Activities",
          type: "multiple_choice",
          options: ["Swimming", "<b>Archery</b>", "<i>Rock</i> Climbing", "archery"],
        },
        { id: "f_501_9", name: "org_name", label: "Organization", type: "text" },
        { id: "f_501_10", name: "main_email", label: "Main email", type: "email" },
      ],
    },
    {
      id: 502,
      name: "Medical",
      mandatory: true,
      initial: false,
      fields: [
        { id: "f_502_1", label: "Allergies", type: "textarea", mandatory: true },
        { id: "f_502_2", label: "Doctor", type: "text", mandatory: true },
      ],
    },
    { id: 503, name: "Office", audience: "admin", fields: [{ id: "f_503_1", label: "Notes", type: "textarea" }] },
    {
      id: 504,
      name: "Consent",
      fields: [{ id: "f_504_1", label: "I agree", type: "single_choice", options: ["Yes", "No"], mandatory: true }],
    },
    { id: 505, name: "Extras", fields: [{ id: "f_505_1", label: "Wishes", type: "text" }] },
  ],
  triggers: [
    { formId: 501, action: "send_email", to: "main_email", subject: "Profile received", body: "<p>Thanks</p>" },
    { formId: 501, action: "add_product", productId: LAB.products.kit, quantity: 2 },
    { formId: 501, action: "add_form", addFormId: 502 },
    { formId: 504, action: "send_email", to: "office@lab.test", subject: "Consent given", body: "Consent" },
    { formId: 505, action: "add_product", productId: LAB.products.extra, quantity: 1 },
  ],
  users: [
    {
      cloginId: LAB.ann,
      username: "ann@lab.test",
      password: "secret1",
      mainEmail: "ann@lab.test",
      firstName: "Ann",
      lastName: "Able",
      applicationDate: "2026-04-02 10:00:00",
    },
    { cloginId: LAB.bob, username: "bob", firstName: "Bob", applicationDate: "2026-04-02 11:00:00" },
    {
      cloginId: LAB.dee,
      username: "dee@lab.test",
      mainEmail: "dee@lab.test",
      firstName: "Dee",
      applicationDate: "2026-04-02 11:30:00",
    },
    {
      cloginId: LAB.cy,
      username: "cy@lab.test",
      mainEmail: "cy@lab.test",
      firstName: "Cy",
      applicationDate: "2026-04-02 12:00:00",
      forms: [501, 502, 505],
      completedForms: [505],
      values: { f_501_1: "Cy", f_501_8: ["Swimming"], f_502_1: "None" },
    },
  ],
};

/** A family project of the lab: create there makes a parent. */
export const LAB_FAMILY_PROJECT = {
  id: LAB.familyGroupId,
  name: "Lab family",
  familySystem: true,
  forms: [
    { id: 601, name: "Everyone", level: "all", fields: [{ id: "f_601_1", label: "Note", type: "text" }] },
    { id: 602, name: "Parents", level: "parent", fields: [{ id: "f_602_1", label: "Phone", type: "phone" }] },
    { id: 603, name: "Children", level: "child", fields: [{ id: "f_603_1", label: "Age", type: "number" }] },
    { id: 604, name: "Later", initial: false, fields: [{ id: "f_604_1", label: "Later", type: "text" }] },
  ],
  users: [
    {
      cloginId: 700005,
      username: "pat@lab.test",
      mainEmail: "pat@lab.test",
      firstName: "Pat",
      applicationDate: "2026-04-03 09:00:00",
    },
    {
      cloginId: LAB.kid,
      username: "kid@lab.test",
      firstName: "Kid",
      connectedTo: 700005,
      applicationDate: "2026-04-03 09:05:00",
    },
  ],
};

export const LAB_ADMINS = [
  { id: LAB.admins.owner, name: "Olive Owner", initials: "OO", level: "owner" },
  { id: LAB.admins.managerElsewhere, name: "Mel Manager", initials: "MM", level: "manager", projectIds: [100909072] },
  { id: LAB.admins.staff, name: "Stu Staff", initials: "SS", level: "staff", projectIds: [LAB.groupId] },
  { id: LAB.admins.viewer, name: "Vic Viewer", initials: "VV", level: "viewer", projectIds: [LAB.groupId] },
];

type Json = Record<string, unknown>;

/** The standard test fixture (demo org + foreign org) with extra projects and admins in the demo org. */
export function fixtureWith(projects: Json[], admins: Json[] = []): unknown {
  const fixture = testFixture() as { organizations: { projects: Json[]; admins: Json[] }[] };
  fixture.organizations[0].projects.push(...structuredClone(projects));
  fixture.organizations[0].admins.push(...structuredClone(admins));
  return fixture;
}

export const labFixture = () => fixtureWith([LAB_PROJECT, LAB_FAMILY_PROJECT], LAB_ADMINS);

export const postUsers = (t: TestApp, body: unknown, headers: Record<string, string> = mapleHeaders) =>
  request(t.app)
    .post("/reg/api2/users/")
    .set(headers)
    .send(body as object);

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

/** The contract §3 error body, key by key. */
export function expectErrorBody(
  res: request.Response,
  status: number,
  code: string,
  options: { msg?: RegExp | string; errors?: { path: string; message?: RegExp | string }[] } = {},
): void {
  expect([res.status, res.body.error_code]).toEqual([status, code]);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  const keys = ["success", "msg", "msg_type", "error_code", ...(options.errors ? ["errors"] : []), "request_id"];
  expect(Object.keys(res.body)).toEqual(expect.arrayContaining(keys));
  expect(res.body.success).toBe(false);
  expect(res.body.msg_type).toBe("error");
  expect(typeof res.body.msg).toBe("string");
  if (options.msg instanceof RegExp) expect(res.body.msg).toMatch(options.msg);
  else if (options.msg !== undefined) expect(res.body.msg).toBe(options.msg);
  if (options.errors) {
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(options.errors.map((e) => e.path));
    options.errors.forEach((expected, i) => {
      expect(Object.keys(res.body.errors[i])).toEqual(["path", "message"]);
      if (expected.message instanceof RegExp) expect(res.body.errors[i].message).toMatch(expected.message);
      else if (expected.message !== undefined) expect(res.body.errors[i].message).toBe(expected.message);
    });
  } else {
    expect(res.body.errors).toBeUndefined();
  }
  expect(res.body.request_id).toBe(res.headers["x-request-id"]);
}

const WRITTEN_TABLES = [
  "person",
  "registration",
  "registration_form",
  "field_value",
  "cart_line",
  "email_record",
  "outbox_email",
  "trigger_firing",
] as const;

/** Every row of every table a users call may write, in a stable order, for before/after comparisons. */
export async function snapshotWrites(ds: DataSource): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  for (const table of WRITTEN_TABLES) {
    const rows: Json[] = await ds.query(`SELECT * FROM ${table}`);
    snapshot[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [
              k,
              v instanceof Date ? v.toISOString() : v === null ? null : String(v),
            ]),
          ),
        ),
      )
      .sort();
  }
  return snapshot;
}

/** A registration's uid in a project. */
export async function uidOf(ds: DataSource, groupId: number, cloginId: number): Promise<number> {
  const rows: Json[] = await ds.query(`SELECT uid FROM registration WHERE project_id = ? AND person_id = ?`, [
    groupId,
    cloginId,
  ]);
  if (rows.length !== 1) throw new Error(`no registration of ${cloginId} in ${groupId}`);
  return Number(rows[0].uid);
}

/** Stored value text of a field, or undefined. */
export async function storedValue(
  ds: DataSource,
  groupId: number,
  cloginId: number,
  fieldId: string,
): Promise<string | undefined> {
  const uid = await uidOf(ds, groupId, cloginId);
  const rows: Json[] = await ds.query(`SELECT value FROM field_value WHERE registration_id = ? AND field_id = ?`, [
    uid,
    fieldId,
  ]);
  return rows.length === 0 ? undefined : String(rows[0].value);
}

export interface FormStateRow {
  formId: number;
  completed: boolean;
  completedAt: string | null;
  submittedAt: string | null;
}

/** The registration's form set with its states, by form id. */
export async function formStates(
  ds: DataSource,
  groupId: number,
  cloginId: number,
): Promise<Map<number, FormStateRow>> {
  const uid = await uidOf(ds, groupId, cloginId);
  const rows: Json[] = await ds.query(
    `SELECT form_id, completed, completed_at, submitted_at FROM registration_form WHERE registration_id = ? ORDER BY form_id`,
    [uid],
  );
  const iso = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : String(v));
  return new Map(
    rows.map((row) => [
      Number(row.form_id),
      {
        formId: Number(row.form_id),
        completed: Number(row.completed) === 1 || row.completed === true,
        completedAt: iso(row.completed_at),
        submittedAt: iso(row.submitted_at),
      },
    ]),
  );
}

/** Rows of a table for one registration (counting what triggers wrote). */
export async function rowsOf(
  ds: DataSource,
  table: "cart_line" | "email_record" | "outbox_email" | "trigger_firing",
  uid: number,
): Promise<Json[]> {
  return ds.query(
    `SELECT * FROM ${table} WHERE registration_id = ? ORDER BY ${table === "trigger_firing" ? "trigger_id" : "id"}`,
    [uid],
  );
}
