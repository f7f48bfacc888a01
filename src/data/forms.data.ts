import type { EntityManager } from "typeorm";
import { FieldValue, RegistrationForm, type FieldType, type FormAudience, type FormLevel } from "../entities";
import { decodeAnswer, parseChoiceOptions, type FieldAnswer } from "./field-value-codec";
import { executeWrite, insertRows, preparedValue, upsertRows } from "../db/insert-rows";
import { chunked, groupBy } from "./batch";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

// Forms, fields, stored answers and registrations' form sets: the one read model of each table,
// used by the domain, the GraphQL loaders and the seed. Each read is one statement whatever the
// number of forms or fields (per chunk of READ_CHUNK keys for the batch reads), so a users call
// costs the same for a user with one form as for one with fifty.

/** A form of a project. */
export interface FormDefinition {
  id: number;
  projectId: number;
  name: string;
  mandatory: boolean;
  audience: FormAudience;
  level: FormLevel;
  /** Given to a new registration of its level. */
  initial: boolean;
}

/** A field of a form. */
export interface FieldDefinition {
  /** The wire identifier `f_<form>_<n>`. */
  id: string;
  formId: number;
  /** Mapped name, or null. */
  name: string | null;
  label: string;
  fieldType: FieldType;
  mandatory: boolean;
  /** Option values of a choice field; empty for other types. */
  options: string[];
}

/** A form in a registration's form set, with its state. */
export interface RegistrationFormState {
  uid: number;
  form: FormDefinition;
  completed: boolean;
  completedAt: Date | null;
  submittedAt: Date | null;
}

/** A registration's stored answer to a field, decoded. */
export interface StoredAnswer {
  uid: number;
  field: FieldDefinition;
  answer: FieldAnswer;
  updatedAt: Date;
}

/** A form's columns (alias `fo`): its row shape's member names and the SQL of each. */
export const FORM_MEMBERS = [
  ["form_id", "fo.id"],
  ["form_project_id", "fo.project_id"],
  ["form_name", "fo.name"],
  ["form_mandatory", "fo.mandatory"],
  ["form_audience", "fo.audience"],
  ["form_level", "fo.audience_level"],
  ["form_initial", "fo.initial"],
] as const;
export const FORM_COLUMNS = FORM_MEMBERS.map(([member, sql]) => `${sql} AS ${member}`).join(", ");
export const FORM_SHAPE = {
  form_id: "int",
  form_project_id: "int",
  form_name: "text",
  form_mandatory: "flag",
  form_audience: "text",
  form_level: "text",
  form_initial: "flag",
} as const;

export const toForm = (row: RowOf<typeof FORM_SHAPE>): FormDefinition => ({
  id: row.form_id,
  projectId: row.form_project_id,
  name: row.form_name,
  mandatory: row.form_mandatory,
  audience: row.form_audience as FormAudience,
  level: row.form_level as FormLevel,
  initial: row.form_initial,
});

/** A field's columns (alias `f`): its row shape's member names and the SQL of each. */
export const FIELD_MEMBERS = [
  ["field_id", "f.id"],
  ["field_form_id", "f.form_id"],
  ["field_name", "f.name"],
  ["field_label", "f.label"],
  ["field_type", "f.field_type"],
  ["field_mandatory", "f.mandatory"],
  ["field_options", "f.choice_options"],
] as const;
export const FIELD_COLUMNS = FIELD_MEMBERS.map(([member, sql]) => `${sql} AS ${member}`).join(", ");
export const FIELD_SHAPE = {
  field_id: "text",
  field_form_id: "int",
  field_name: "textOrNull",
  field_label: "text",
  field_type: "text",
  field_mandatory: "flag",
  field_options: "textOrNull",
} as const;

// The same columns through a LEFT JOIN: null where a form has no fields.
export const LEFT_JOINED_FIELD_SHAPE = {
  field_id: "textOrNull",
  field_form_id: "intOrNull",
  field_name: "textOrNull",
  field_label: "textOrNull",
  field_type: "textOrNull",
  field_mandatory: "flag",
  field_options: "textOrNull",
} as const;

export const toField = (row: RowOf<typeof FIELD_SHAPE>): FieldDefinition => ({
  id: row.field_id,
  formId: row.field_form_id,
  name: row.field_name,
  label: row.field_label,
  fieldType: row.field_type as FieldType,
  mandatory: row.field_mandatory,
  options: parseChoiceOptions(row.field_options),
});

/** The project's forms in form order. */
export async function readProjectForms(em: EntityManager, projectId: number): Promise<FormDefinition[]> {
  const rows = await selectRows(
    em,
    FORM_SHAPE,
    `SELECT ${FORM_COLUMNS} FROM form fo WHERE fo.project_id = ? ORDER BY fo.sort_order, fo.id`,
    [projectId],
  );
  return rows.map(toForm);
}

/** The forms of these projects in form order, by project id: one statement. */
export async function readFormsOfProjects(
  em: EntityManager,
  projectIds: readonly number[],
): Promise<Map<number, FormDefinition[]>> {
  if (projectIds.length === 0) return new Map();
  const rows = await selectRows(
    em,
    FORM_SHAPE,
    `SELECT ${FORM_COLUMNS} FROM form fo WHERE fo.project_id IN (${sqlPlaceholders(projectIds.length)})
      ORDER BY fo.sort_order, fo.id`,
    [...projectIds],
  );
  return groupBy(rows.map(toForm), (form) => form.projectId);
}

/** The project's fields in field order. */
export async function readProjectFields(em: EntityManager, projectId: number): Promise<FieldDefinition[]> {
  const rows = await selectRows(
    em,
    FIELD_SHAPE,
    `SELECT ${FIELD_COLUMNS} FROM field f WHERE f.project_id = ? ORDER BY f.sort_order, f.id`,
    [projectId],
  );
  return rows.map(toField);
}

/** Fields of the project named by identifier or mapped name; keys that name nothing are absent. */
export async function readFieldsByKeys(
  em: EntityManager,
  projectId: number,
  keys: readonly string[],
): Promise<FieldDefinition[]> {
  if (keys.length === 0) return [];
  const list = sqlPlaceholders(keys.length);
  const rows = await selectRows(
    em,
    FIELD_SHAPE,
    `SELECT ${FIELD_COLUMNS} FROM field f WHERE f.project_id = ? AND (f.id IN (${list}) OR f.name IN (${list}))`,
    [projectId, ...keys, ...keys],
  );
  return rows.map(toField);
}

/** Fields of forms, in field order, by form id. */
export async function readFieldsOfForms(
  em: EntityManager,
  formIds: readonly number[],
): Promise<Map<number, FieldDefinition[]>> {
  const all: FieldDefinition[] = [];
  await chunked(formIds, async (chunk) => {
    const rows = await selectRows(
      em,
      FIELD_SHAPE,
      `SELECT ${FIELD_COLUMNS} FROM field f WHERE f.form_id IN (${sqlPlaceholders(chunk.length)}) ORDER BY f.sort_order, f.id`,
      chunk,
    );
    all.push(...rows.map(toField));
  });
  return groupBy(all, (field) => field.formId);
}

/** Which of the given form ids are forms of the project. */
export async function readProjectFormIds(
  em: EntityManager,
  projectId: number,
  formIds: readonly number[],
): Promise<Set<number>> {
  if (formIds.length === 0) return new Set();
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM form WHERE project_id = ? AND id IN (${sqlPlaceholders(formIds.length)})`,
    [projectId, ...formIds],
  );
  return new Set(rows.map((row) => row.id));
}

export const FORM_STATE_SHAPE = {
  ...FORM_SHAPE,
  registration_id: "int",
  completed: "flag",
  completed_at: "dateOrNull",
  submitted_at: "dateOrNull",
} as const;

/** Each registration's form set in form order, by uid. */
export async function readFormSets(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, RegistrationFormState[]>> {
  const all: RegistrationFormState[] = [];
  await chunked(uids, async (chunk) => {
    const rows = await selectRows(
      em,
      FORM_STATE_SHAPE,
      `SELECT rf.registration_id, rf.completed, rf.completed_at, rf.submitted_at, ${FORM_COLUMNS}
         FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
        WHERE rf.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY fo.sort_order, fo.id`,
      chunk,
    );
    for (const row of rows) {
      all.push({
        uid: row.registration_id,
        form: toForm(row),
        completed: row.completed,
        completedAt: row.completed_at,
        submittedAt: row.submitted_at,
      });
    }
  });
  return groupBy(all, (row) => row.uid);
}

/**
 * Each registration's form set in form order, by uid, and the fields of those forms in field
 * order, by form id: one statement where readFormSets and readFieldsOfForms take two.
 */
export async function readFormSetsWithFields(
  em: EntityManager,
  uids: readonly number[],
): Promise<{ formSets: Map<number, RegistrationFormState[]>; fields: Map<number, FieldDefinition[]> }> {
  const formSets = new Map<number, RegistrationFormState[]>();
  const fields = new Map<number, FieldDefinition[]>();
  await chunked(uids, async (chunk) => {
    const rows = await selectRows(
      em,
      {
        ...FORM_STATE_SHAPE,
        ...LEFT_JOINED_FIELD_SHAPE,
      },
      `SELECT rf.registration_id, rf.completed, rf.completed_at, rf.submitted_at, ${FORM_COLUMNS}, ${FIELD_COLUMNS}
         FROM registration_form rf JOIN form fo ON fo.id = rf.form_id
         LEFT JOIN field f ON f.form_id = fo.id
        WHERE rf.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY rf.registration_id, fo.sort_order, fo.id, f.sort_order, f.id`,
      chunk,
    );
    let currentForm = "";
    let collectFields = false;
    for (const row of rows) {
      const formKey = `${row.registration_id}:${row.form_id}`;
      if (formKey !== currentForm) {
        currentForm = formKey;
        const set = formSets.get(row.registration_id) ?? [];
        set.push({
          uid: row.registration_id,
          form: toForm(row),
          completed: row.completed,
          completedAt: row.completed_at,
          submittedAt: row.submitted_at,
        });
        formSets.set(row.registration_id, set);
        // A form's fields are the same for every registration holding it: kept once.
        collectFields = !fields.has(row.form_id);
        if (collectFields) fields.set(row.form_id, []);
      }
      if (row.field_id === null || !collectFields) continue;
      fields.get(row.form_id)!.push(
        toField({
          ...row,
          field_id: row.field_id,
          field_form_id: row.field_form_id ?? row.form_id,
          field_label: row.field_label ?? "",
          field_type: row.field_type ?? "",
        }),
      );
    }
  });
  return { formSets, fields };
}

/** One registration's form set in form order. */
export async function readFormSet(em: EntityManager, uid: number): Promise<RegistrationFormState[]> {
  return (await readFormSets(em, [uid])).get(uid) ?? [];
}

/** A form joining a registration's form set: not completed unless its state says so. */
export interface NewRegistrationForm {
  formId: number;
  completed?: boolean;
  completedAt?: Date | null;
  submittedAt?: Date | null;
}

/** Adds forms to a registration's form set: one statement. */
export async function addFormsToRegistration(
  em: EntityManager,
  registrationId: number,
  forms: readonly NewRegistrationForm[],
  addedAt: Date,
): Promise<void> {
  await insertRows(
    em,
    RegistrationForm,
    forms.map((form) => ({
      registrationId,
      formId: form.formId,
      completed: form.completed ?? false,
      completedAt: form.completedAt ?? null,
      submittedAt: form.submittedAt ?? null,
      addedAt,
    })),
  );
}

/** Sets the state of some forms of one registration's form set. */
export async function updateRegistrationForms(
  em: EntityManager,
  registrationId: number,
  formIds: readonly number[],
  state: Partial<Pick<RegistrationForm, "completed" | "completedAt" | "submittedAt">>,
): Promise<void> {
  const members = (Object.keys(state) as (keyof typeof state)[]).filter((member) => state[member] !== undefined);
  if (formIds.length === 0 || members.length === 0) return;
  const column = (member: string) =>
    em.connection.getMetadata(RegistrationForm).findColumnWithPropertyName(member)!.databaseName;
  await executeWrite(
    em,
    `UPDATE registration_form SET ${members.map((member) => `${column(member)} = ?`).join(", ")}
      WHERE registration_id = ? AND form_id IN (${sqlPlaceholders(formIds.length)})`,
    [
      ...members.map((member) => preparedValue(em, RegistrationForm, member, state[member])),
      registrationId,
      ...formIds,
    ],
  );
}

/** Stored values of the given fields, by field id (encoded as stored). */
export async function readStoredValues(
  em: EntityManager,
  registrationId: number,
  fieldIds: readonly string[],
): Promise<Map<string, string>> {
  if (fieldIds.length === 0) return new Map();
  const rows = await selectRows(
    em,
    { field_id: "text", value: "text" },
    `SELECT field_id, value FROM field_value WHERE registration_id = ? AND field_id IN (${sqlPlaceholders(fieldIds.length)})`,
    [registrationId, ...fieldIds],
  );
  return new Map(rows.map((row) => [row.field_id, row.value]));
}

/** Writes answers, replacing a registration's stored value of the same field. */
export async function upsertFieldValues(
  em: EntityManager,
  rows: readonly { registrationId: number; fieldId: string; value: string; updatedAt: Date }[],
): Promise<void> {
  await upsertRows(em, FieldValue, [...rows], ["registrationId", "fieldId"], ["value", "updatedAt"]);
}

/** Each registration's stored answers, decoded, in form and field order, by uid. */
export async function readStoredAnswers(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, StoredAnswer[]>> {
  const all: StoredAnswer[] = [];
  await chunked(uids, async (chunk) => {
    const rows = await selectRows(
      em,
      { ...FIELD_SHAPE, registration_id: "int", value: "text", updated_at: "date" },
      `SELECT v.registration_id, v.value, v.updated_at, ${FIELD_COLUMNS}
         FROM field_value v JOIN field f ON f.id = v.field_id JOIN form fo ON fo.id = f.form_id
        WHERE v.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
      chunk,
    );
    for (const row of rows) {
      const field = toField(row);
      all.push({
        uid: row.registration_id,
        field,
        answer: decodeAnswer(field.fieldType, row.value),
        updatedAt: row.updated_at,
      });
    }
  });
  return groupBy(all, (row) => row.uid);
}
