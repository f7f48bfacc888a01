import type { DataSource } from "typeorm";

// What a registration holds, read straight from the tables, for asserting what a call wrote.

type Json = Record<string, unknown>;

/** The uid of the registration of person `cloginId` in project `groupId`. */
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

/** What triggers wrote for a registration: cart lines, email history, outbox and firings. */
export async function triggerEffects(ds: DataSource, groupId: number, cloginId: number) {
  const uid = await uidOf(ds, groupId, cloginId);
  return {
    cart: await rowsOf(ds, "cart_line", uid),
    history: await rowsOf(ds, "email_record", uid),
    outbox: await rowsOf(ds, "outbox_email", uid),
    firings: await rowsOf(ds, "trigger_firing", uid),
  };
}
