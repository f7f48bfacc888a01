import type { EntityManager } from "typeorm";
import type { FieldType } from "../entities";
import {
  FIELD_COLUMNS,
  FORM_COLUMNS,
  FORM_SHAPE,
  FORM_STATE_SHAPE,
  LEFT_JOINED_FIELD_SHAPE,
  toField,
  toForm,
  type FieldDefinition,
  type RegistrationFormState,
} from "./forms.data";
import {
  compareText,
  decodeJsonRows,
  decodeRows,
  jsonObjectsSql,
  selectRawRows,
  selectRows,
  sqlPlaceholders,
} from "./sql-rows";
import { toTriggers, TRIGGER_MEMBERS, TRIGGER_SHAPE, type PendingTrigger } from "./triggers.data";

// What submitting or completing a registration's forms needs, read with its form set so that a
// write costs one read however many forms it submits: per held form, its mandatory fields with the
// registration's stored answers (a submission checks them) and its triggers that have not acted
// for the registration yet (a submission fires them).

/** A mandatory field, as far as checking a submission needs it. */
export interface MandatoryField {
  id: string;
  formId: number;
  label: string;
  fieldType: FieldType;
  mandatory: true;
}

/** The rules of one form of a registration's form set, as they stand for that registration. */
export interface FormRules {
  /** Mandatory fields in field order, each with the registration's stored answer (encoded; null: none). */
  mandatory: { field: MandatoryField; value: string | null }[];
  /** Triggers of the form that have not acted for the registration, in trigger order. */
  unfiredTriggers: PendingTrigger[];
}

const MANDATORY_MEMBERS = [
  ["id", "f.id"],
  ["form_id", "f.form_id"],
  ["label", "f.label"],
  ["field_type", "f.field_type"],
  ["sort", "f.sort_order"],
  ["value", "fv.value"],
] as const;
const MANDATORY_SHAPE = {
  id: "text",
  form_id: "int",
  label: "text",
  field_type: "text",
  sort: "int",
  value: "textOrNull",
} as const;

// The rule columns of form `fo` for the registration `registrationSql` (a column or `?`).
// `triggersWhen`: read the unfired triggers only where it holds (a completed form fires none).
function formRulesSql(em: EntityManager, registrationSql: string, triggersWhen?: string): string {
  const mandatory = `(SELECT ${jsonObjectsSql(em, MANDATORY_MEMBERS)}
            FROM field f LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = ${registrationSql}
           WHERE f.form_id = fo.id AND f.mandatory = 1)`;
  const triggers = `(SELECT ${jsonObjectsSql(em, TRIGGER_MEMBERS)}
            FROM form_trigger t LEFT JOIN product p ON p.id = t.product_id
            LEFT JOIN trigger_firing tf ON tf.trigger_id = t.id AND tf.registration_id = ${registrationSql}
           WHERE t.form_id = fo.id AND tf.trigger_id IS NULL)`;
  return `${mandatory} AS mandatory_fields, ${triggersWhen ? `CASE WHEN ${triggersWhen} THEN ${triggers} END` : triggers} AS unfired_triggers`;
}

function formRulesOf(raw: Record<string, unknown>, sql: string): FormRules {
  const mandatory = decodeJsonRows(MANDATORY_SHAPE, raw.mandatory_fields, sql).sort(
    (a, b) => a.sort - b.sort || compareText(a.id, b.id),
  );
  return {
    mandatory: mandatory.map((row) => ({
      field: {
        id: row.id,
        formId: row.form_id,
        label: row.label,
        fieldType: row.field_type as FieldType,
        mandatory: true,
      },
      value: row.value,
    })),
    unfiredTriggers: toTriggers(decodeJsonRows(TRIGGER_SHAPE, raw.unfired_triggers, sql)),
  };
}

// Rows are put in form order here rather than by ORDER BY: with the TEXT and JSON columns these
// statements return, MariaDB would sort them through an on-disk temporary table.
const inFormOrder = <R extends { form_sort: number; form_id: number }>(rows: R[]): R[] =>
  rows.sort((a, b) => a.form_sort - b.form_sort || a.form_id - b.form_id);

/**
 * A registration's form set in form order, with each form's mandatory fields and the
 * registration's answers to them: one statement, joined rather than aggregated (MariaDB builds
 * JSON aggregates slower than it joins a handful of rows; marking forms complete runs this on
 * every call).
 */
export async function readFormSetWithMandatory(
  em: EntityManager,
  uid: number,
): Promise<{ formSet: RegistrationFormState[]; mandatory: Map<number, FormRules["mandatory"]> }> {
  const sql = `SELECT rf.registration_id, rf.completed, rf.completed_at, rf.submitted_at, ${FORM_COLUMNS},
            fo.sort_order AS form_sort, f.id AS m_id, f.label AS m_label, f.field_type AS m_type,
            f.sort_order AS m_sort, fv.value AS m_value
       FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
       LEFT JOIN field f ON f.form_id = fo.id AND f.mandatory = 1
       LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = rf.registration_id
      WHERE rf.registration_id = ?`;
  const rows = inFormOrder(
    await selectRows(
      em,
      {
        ...FORM_STATE_SHAPE,
        form_sort: "int",
        m_id: "textOrNull",
        m_label: "textOrNull",
        m_type: "textOrNull",
        m_sort: "intOrNull",
        m_value: "textOrNull",
      },
      sql,
      [uid],
    ),
  );
  const formSet: RegistrationFormState[] = [];
  const mandatory = new Map<number, (FormRules["mandatory"][number] & { sort: number })[]>();
  for (const row of rows) {
    if (!mandatory.has(row.form_id)) {
      mandatory.set(row.form_id, []);
      formSet.push({
        uid,
        form: toForm(row),
        completed: row.completed,
        completedAt: row.completed_at,
        submittedAt: row.submitted_at,
      });
    }
    if (row.m_id === null) continue;
    mandatory.get(row.form_id)!.push({
      field: {
        id: row.m_id,
        formId: row.form_id,
        label: row.m_label ?? "",
        fieldType: row.m_type as FieldType,
        mandatory: true,
      },
      value: row.m_value,
      sort: row.m_sort ?? 0,
    });
  }
  for (const fields of mandatory.values())
    fields.sort((a, b) => a.sort - b.sort || compareText(a.field.id, b.field.id));
  return { formSet, mandatory };
}

/** The rules of some forms for a registration, by form id: one statement (none without forms). */
export async function readFormRules(
  em: EntityManager,
  uid: number,
  formIds: readonly number[],
): Promise<Map<number, FormRules>> {
  if (formIds.length === 0) return new Map();
  const sql = `SELECT fo.id AS form_id, ${formRulesSql(em, "?")}
       FROM form fo WHERE fo.id IN (${sqlPlaceholders(formIds.length)})`;
  const raw = await selectRawRows(em, sql, [uid, uid, ...formIds]);
  return new Map(raw.map((row) => [Number(row.form_id), formRulesOf(row, sql)]));
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
}

/**
 * A registration's form set, the project's fields named by `keys` and their stored values, in one
 * statement: every form of the project that the registration holds or that has a named field,
 * with the named fields joined to it. (The rules of the forms the values submit are read only when
 * they submit any: readFormRules. Most updates change nothing and need none.)
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
            fo.sort_order AS form_sort, ${FIELD_COLUMNS}, fv.value AS stored_value
       FROM form fo
       LEFT JOIN registration_form rf ON rf.form_id = fo.id AND rf.registration_id = ?
       LEFT JOIN field f ON f.form_id = fo.id AND f.project_id = fo.project_id AND ${named}
       LEFT JOIN field_value fv ON fv.registration_id = ? AND fv.field_id = f.id
      WHERE fo.project_id = ? AND (rf.registration_id IS NOT NULL OR f.id IS NOT NULL)`;
  const raw = await selectRawRows(em, sql, [uid, ...keys, ...keys, uid, projectId]);
  const rows = inFormOrder(decodeRows(VALUE_TARGET_SHAPE, raw, sql));
  const targets: ValueTargets = { formSet: [], fields: [], stored: new Map() };
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
  }
  return targets;
}
