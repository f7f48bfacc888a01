import { sqlFlag, sqlPlaceholders } from "../../db/raw-rows";
import type { EntityManager } from "typeorm";
import type { FieldType } from "../../entities";
import { toDate } from "../../shared/dates";
import { parseChoiceOptions } from "./field-value-codec";

// Batched reads of forms, fields and values for one registration. Each function is one SQL
// statement whatever the number of forms or fields, so a users call costs the same for a user
// with one form as for one with fifty.

// Keeps IN lists well below every driver's parameter limit; callers cap their inputs below it.
export const MAX_KEYS_PER_CALL = 1000;

export interface FieldDefinition {
  id: string;
  formId: number;
  /** Mapped name, or null. */
  name: string | null;
  label: string;
  fieldType: FieldType;
  mandatory: boolean;
  options: string[];
}

/** A form of the registration's form set, with its state. */
export interface RegisteredForm {
  formId: number;
  name: string;
  completed: boolean;
  completedAt: Date | null;
  submittedAt: Date | null;
}

/** A mandatory field of a form with the registration's current (encoded) value, if any. */
export interface MandatoryFieldState {
  fieldId: string;
  formId: number;
  label: string;
  fieldType: FieldType;
  value: string | null;
}

type Row = Record<string, unknown>;
const optionalDate = (value: unknown) => (value == null ? null : toDate(value as Date | string));

/** Fields of the project named by identifier or mapped name; keys that name nothing are absent. */
export async function loadFieldsByKeys(
  em: EntityManager,
  projectId: number,
  keys: readonly string[],
): Promise<FieldDefinition[]> {
  if (keys.length === 0) return [];
  const list = sqlPlaceholders(keys.length);
  const rows: Row[] = await em.query(
    `SELECT id, form_id, name, label, field_type, mandatory, choice_options
       FROM field WHERE project_id = ? AND (id IN (${list}) OR name IN (${list}))`,
    [projectId, ...keys, ...keys],
  );
  return rows.map((row) => ({
    id: String(row.id),
    formId: Number(row.form_id),
    name: row.name == null ? null : String(row.name),
    label: String(row.label),
    fieldType: String(row.field_type) as FieldType,
    mandatory: sqlFlag(row.mandatory),
    options: parseChoiceOptions(row.choice_options as string | null),
  }));
}

/** The registration's form set in form order. */
export async function loadRegisteredForms(em: EntityManager, registrationId: number): Promise<RegisteredForm[]> {
  const rows: Row[] = await em.query(
    `SELECT rf.form_id, rf.completed, rf.completed_at, rf.submitted_at, f.name
       FROM registration_form rf JOIN form f ON f.id = rf.form_id
      WHERE rf.registration_id = ?
      ORDER BY f.sort_order, f.id`,
    [registrationId],
  );
  return rows.map((row) => ({
    formId: Number(row.form_id),
    name: String(row.name),
    completed: sqlFlag(row.completed),
    completedAt: optionalDate(row.completed_at),
    submittedAt: optionalDate(row.submitted_at),
  }));
}

/** Stored values of the given fields, by field id (encoded as stored). */
export async function loadStoredValues(
  em: EntityManager,
  registrationId: number,
  fieldIds: readonly string[],
): Promise<Map<string, string>> {
  if (fieldIds.length === 0) return new Map();
  const rows: Row[] = await em.query(
    `SELECT field_id, value FROM field_value WHERE registration_id = ? AND field_id IN (${sqlPlaceholders(fieldIds.length)})`,
    [registrationId, ...fieldIds],
  );
  return new Map(rows.map((row) => [String(row.field_id), String(row.value)]));
}

/** Mandatory fields of the given forms with the registration's values, in form then field order. */
export async function loadMandatoryFieldStates(
  em: EntityManager,
  registrationId: number,
  formIds: readonly number[],
): Promise<MandatoryFieldState[]> {
  if (formIds.length === 0) return [];
  const rows: Row[] = await em.query(
    `SELECT f.id, f.form_id, f.label, f.field_type, fv.value
       FROM field f LEFT JOIN field_value fv ON fv.field_id = f.id AND fv.registration_id = ?
      WHERE f.form_id IN (${sqlPlaceholders(formIds.length)}) AND f.mandatory = 1
      ORDER BY f.form_id, f.sort_order, f.id`,
    [registrationId, ...formIds],
  );
  return rows.map((row) => ({
    fieldId: String(row.id),
    formId: Number(row.form_id),
    label: String(row.label),
    fieldType: String(row.field_type) as FieldType,
    value: row.value == null ? null : String(row.value),
  }));
}

/** Which of the given form ids are forms of the project. */
export async function loadProjectFormIds(
  em: EntityManager,
  projectId: number,
  formIds: readonly number[],
): Promise<Set<number>> {
  if (formIds.length === 0) return new Set();
  const rows: Row[] = await em.query(
    `SELECT id FROM form WHERE project_id = ? AND id IN (${sqlPlaceholders(formIds.length)})`,
    [projectId, ...formIds],
  );
  return new Set(rows.map((row) => Number(row.id)));
}

/** The project's initial forms for a level (`all` forms plus those of the level), in form order. */
export async function loadInitialFormIds(
  em: EntityManager,
  projectId: number,
  level: "parent" | "child",
): Promise<number[]> {
  const rows: Row[] = await em.query(
    `SELECT id FROM form WHERE project_id = ? AND initial = 1 AND audience_level IN ('all', ?) ORDER BY sort_order, id`,
    [projectId, level],
  );
  return rows.map((row) => Number(row.id));
}
