import type { EntityManager } from "typeorm";
import {
  FIELD_COLUMNS,
  FIELD_MEMBERS,
  FIELD_SHAPE,
  FORM_COLUMNS,
  FORM_SHAPE,
  FORM_STATE_SHAPE,
  LEFT_JOINED_FIELD_SHAPE,
  toField,
  toForm,
  type FieldDefinition,
  type RegistrationFormState,
} from "./forms.data";
import { decodeJsonRows, decodeRows, jsonObjectsSql, selectRawRows, sqlPlaceholders } from "./sql-rows";
import { toTriggers, TRIGGER_MEMBERS, TRIGGER_SHAPE, type PendingTrigger } from "./triggers.data";

// What submitting or completing a registration's forms needs, read with its form set so that a
// write costs one read however many forms it submits: per held form, its mandatory fields with the
// registration's stored answers (a submission checks them) and its triggers that have not acted
// for the registration yet (a submission fires them).

/** The rules of one form of a registration's form set, as they stand for that registration. */
export interface FormRules {
  /** Mandatory fields in field order, each with the registration's stored answer (encoded; null: none). */
  mandatory: { field: FieldDefinition; value: string | null }[];
  /** Triggers of the form that have not acted for the registration, in trigger order. */
  unfiredTriggers: PendingTrigger[];
}

// The rule columns of form `fo` for the registration `registrationSql` (a column or `?`); with
// `when`, each is read only for rows where that condition holds (NULL elsewhere).
function formRulesSql(em: EntityManager, registrationSql: string, when?: string): string {
  const mandatory = `(SELECT ${jsonObjectsSql(em, [...FIELD_MEMBERS, ["sort", "f.sort_order"], ["value", "fv.value"]])}
            FROM field f LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = ${registrationSql}
           WHERE f.form_id = fo.id AND f.mandatory = 1)`;
  const triggers = `(SELECT ${jsonObjectsSql(em, TRIGGER_MEMBERS)}
            FROM form_trigger t LEFT JOIN product p ON p.id = t.product_id
           WHERE t.form_id = fo.id
             AND NOT EXISTS (SELECT 1 FROM trigger_firing tf WHERE tf.trigger_id = t.id AND tf.registration_id = ${registrationSql}))`;
  const only = (column: string) => (when ? `CASE WHEN ${when} THEN ${column} END` : column);
  return `${only(mandatory)} AS mandatory_fields, ${only(triggers)} AS unfired_triggers`;
}

function formRulesOf(raw: Record<string, unknown>, sql: string): FormRules {
  const mandatory = decodeJsonRows(
    { ...FIELD_SHAPE, sort: "int", value: "textOrNull" },
    raw.mandatory_fields,
    sql,
  ).sort((a, b) => a.sort - b.sort || compareText(a.field_id, b.field_id));
  return {
    mandatory: mandatory.map((row) => ({ field: toField(row), value: row.value })),
    unfiredTriggers: toTriggers(decodeJsonRows(TRIGGER_SHAPE, raw.unfired_triggers, sql)),
  };
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// Rows are put in form order here rather than by ORDER BY: with the TEXT and JSON columns these
// statements return, MariaDB would sort them through an on-disk temporary table.
const inFormOrder = <R extends { form_sort: number; form_id: number }>(rows: R[]): R[] =>
  rows.sort((a, b) => a.form_sort - b.form_sort || a.form_id - b.form_id);

/** A registration's form set in form order, with each form's rules for it: one statement. */
export async function readFormSetWithRules(
  em: EntityManager,
  uid: number,
): Promise<{ formSet: RegistrationFormState[]; rules: Map<number, FormRules> }> {
  const sql = `SELECT rf.registration_id, rf.completed, rf.completed_at, rf.submitted_at, ${FORM_COLUMNS},
            fo.sort_order AS form_sort, ${formRulesSql(em, "rf.registration_id")}
       FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
      WHERE rf.registration_id = ?`;
  const raw = await selectRawRows(em, sql, [uid]);
  const rows = inFormOrder(
    decodeRows({ ...FORM_STATE_SHAPE, form_sort: "int" }, raw, sql).map((row, index) => ({ ...row, raw: raw[index] })),
  );
  return {
    formSet: rows.map((row) => ({
      uid,
      form: toForm(row),
      completed: row.completed,
      completedAt: row.completed_at,
      submittedAt: row.submitted_at,
    })),
    rules: new Map(rows.map((row) => [row.form_id, formRulesOf(row.raw, sql)])),
  };
}

const VALUE_TARGET_SHAPE = {
  ...FORM_SHAPE,
  form_sort: "int",
  held_by: "intOrNull",
  completed: "flag",
  completed_at: "dateOrNull",
  submitted_at: "dateOrNull",
  ...LEFT_JOINED_FIELD_SHAPE,
  stored_value: "textOrNull",
} as const;

/** What writing `doc` values to one registration needs to know, read at once. */
export interface ValueTargets {
  /** The registration's form set in form order. */
  formSet: RegistrationFormState[];
  /** Fields of the project named by the keys (identifier or mapped name), whoever holds their form. */
  fields: FieldDefinition[];
  /** The registration's stored values of those fields, by field id (encoded as stored). */
  stored: Map<string, string>;
  /** The rules of the held forms that hold a named field (the forms the values may submit), by form id. */
  rules: Map<number, FormRules>;
}

/**
 * A registration's form set, the project's fields named by `keys` and their stored values, and
 * the rules of the held forms those fields belong to, in one statement: every form of the project
 * that the registration holds or that has a named field, with the named fields joined to it.
 */
export async function readValueTargets(
  em: EntityManager,
  uid: number,
  projectId: number,
  keys: readonly string[],
): Promise<ValueTargets> {
  const list = sqlPlaceholders(keys.length);
  const named = keys.length === 0 ? "1 = 0" : `(f.id IN (${list}) OR f.name IN (${list}))`;
  const sql = `SELECT rf.registration_id AS held_by, rf.completed, rf.completed_at, rf.submitted_at, ${FORM_COLUMNS},
            fo.sort_order AS form_sort, ${FIELD_COLUMNS}, fv.value AS stored_value,
            ${formRulesSql(em, "rf.registration_id", "rf.registration_id IS NOT NULL AND f.id IS NOT NULL")}
       FROM form fo
       LEFT JOIN registration_form rf ON rf.form_id = fo.id AND rf.registration_id = ?
       LEFT JOIN field f ON f.form_id = fo.id AND f.project_id = fo.project_id AND ${named}
       LEFT JOIN field_value fv ON fv.registration_id = ? AND fv.field_id = f.id
      WHERE fo.project_id = ? AND (rf.registration_id IS NOT NULL OR f.id IS NOT NULL)`;
  const raw = await selectRawRows(em, sql, [uid, ...keys, ...keys, uid, projectId]);
  const rows = inFormOrder(decodeRows(VALUE_TARGET_SHAPE, raw, sql).map((row, index) => ({ ...row, raw: raw[index] })));
  const targets: ValueTargets = { formSet: [], fields: [], stored: new Map(), rules: new Map() };
  const seenForms = new Set<number>();
  for (const row of rows) {
    if (row.held_by !== null && !seenForms.has(row.form_id)) {
      seenForms.add(row.form_id);
      targets.formSet.push({
        uid,
        form: toForm(row),
        completed: row.completed,
        completedAt: row.completed_at,
        submittedAt: row.submitted_at,
      });
    }
    if (row.field_id === null) continue;
    targets.fields.push(
      toField({
        ...row,
        field_id: row.field_id,
        field_form_id: row.field_form_id ?? row.form_id,
        field_label: row.field_label ?? "",
        field_type: row.field_type ?? "",
      }),
    );
    if (row.stored_value !== null) targets.stored.set(row.field_id, row.stored_value);
    if (row.held_by !== null && !targets.rules.has(row.form_id))
      targets.rules.set(row.form_id, formRulesOf(row.raw, sql));
  }
  return targets;
}
