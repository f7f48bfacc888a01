import type { EntityManager } from "typeorm";
import { readFieldsByKeys, readStoredValues, upsertFieldValues, type FieldDefinition } from "../../data/forms.data";
import type { ValueTargets } from "../../data/form-submission.data";
import { isEmailAddress } from "../../common/email";
import { PERSON_FIELD_MAX_LENGTH, personAttributeOf, type PersonAttributes } from "../users/person-fields";
import { answerIsEmpty, decodeAnswer } from "./field-value-codec";
import { interpretFieldInput } from "./field-input";
import { clientValue } from "../../common/client-value";
import { valueProblem, type ValueProblem } from "./value-problems";

// Writing `doc` values (contract §4): by field identifier or mapped name; system fields, unknown
// fields, unknown answers and fields of forms the user does not have are not written, and each
// gets a problem naming the key, the value and the reason (its message is the legacy notice).
// Everything else is written in two statements.

export type { PersonAttributes };

export interface SaveValuesOptions {
  registrationId: number;
  projectId: number;
  cloginId: number;
  /** The registration's form set: its form ids (or any map keyed by them). */
  forms: Pick<ReadonlySet<number>, "has">;
  /** Keys the caller has already consumed (create's person data): no notice when they name no field of the user's forms. */
  consumedKeys?: ReadonlySet<string>;
  now: Date;
  /** The fields named by the keys and their stored values, when the caller has read them already. */
  preread?: Pick<ValueTargets, "fields" | "stored">;
}

export interface SavedValues {
  /** The values not written, and why, in the order the keys were sent. */
  problems: ValueProblem[];
  /** Forms with at least one accepted value, in the order their first key was sent. */
  formsWithValues: number[];
  /** Forms in which an accepted value differs from the stored one. */
  changedForms: Set<number>;
  /** Fields whose stored value changed (user.updated names them). */
  changedFieldIds: string[];
  /** Person data carried by mapped fields whose value changed. */
  person: PersonAttributes;
}

/** The values accepted for writing, before they are compared with what is stored. */
interface AcceptedValues {
  problems: ValueProblem[];
  accepted: { key: string; field: FieldDefinition; encoded: string }[];
}

/** What writing values changes: the rows to write (encoded as stored) and what they mean. */
export interface PlannedValues extends SavedValues {
  rows: { fieldId: string; value: string }[];
  /** The answers the registration holds once the rows are written, of the fields written. */
  answers: Map<string, string>;
}

const quote = (value: string) => clientValue(value);

/**
 * Why a value of a field mapped to person data cannot be written (too long for its column, or
 * not an email address where one is expected), or undefined when it can.
 */
function personFieldProblem(
  name: string,
  field: FieldDefinition,
  encoded: string,
): [ValueProblem["reason"], string] | undefined {
  const attribute = personAttributeOf(field.name);
  if (!attribute) return undefined;
  const text = encoded.trim();
  const maxLength = PERSON_FIELD_MAX_LENGTH[attribute];
  if (text.length > maxLength)
    return ["TOO_LONG", `${name} is longer than ${maxLength} characters; it was not written.`];
  if (attribute === "mainEmail" && text !== "" && !isEmailAddress(text))
    return ["INVALID_EMAIL", `${name}: ${quote(text)} is not a valid email address; it was not written.`];
  return undefined;
}

/** Which values may be written (contract §4), each refusal with its problem. */
function acceptValues(
  values: Record<string, unknown>,
  fields: readonly FieldDefinition[],
  options: Pick<SaveValuesOptions, "projectId" | "cloginId" | "forms" | "consumedKeys">,
): AcceptedValues {
  const result: AcceptedValues = { problems: [], accepted: [] };
  const byId = new Map(fields.map((field) => [field.id, field]));
  const byName = new Map(fields.filter((field) => field.name !== null).map((field) => [field.name!, field]));
  const keyOfField = new Map<string, string>();
  for (const key of Object.keys(values)) {
    const name = quote(key);
    const value = values[key];
    const refuse = (reason: ValueProblem["reason"], message: string) =>
      result.problems.push(valueProblem(key, value, reason, message));
    if (key.startsWith("_")) {
      refuse("SYSTEM_FIELD", `${name} is a system field and cannot be updated; it was not written.`);
      continue;
    }
    const field = byId.get(key) ?? byName.get(key);
    if (!field) {
      if (!options.consumedKeys?.has(key))
        refuse("UNKNOWN_FIELD", `${name} is not a field of project ${options.projectId}; it was not written.`);
      continue;
    }
    if (!options.forms.has(field.formId)) {
      if (options.consumedKeys?.has(key)) continue;
      refuse(
        "FORM_NOT_AVAILABLE",
        `${name} belongs to form ${field.formId}, which user ${options.cloginId} does not have; it was not written.`,
      );
      continue;
    }
    const earlier = keyOfField.get(field.id);
    if (earlier !== undefined) {
      refuse(
        "DUPLICATE_FIELD",
        `${name} names the same field as ${quote(earlier)} (${field.id}); only ${quote(earlier)} was written.`,
      );
      continue;
    }
    const input = interpretFieldInput(key, field, value);
    result.problems.push(...input.problems);
    if (!input.accepted) continue;
    const personProblem = personFieldProblem(name, field, input.encoded);
    if (personProblem) {
      refuse(...personProblem);
      continue;
    }
    keyOfField.set(field.id, key);
    result.accepted.push({ key, field, encoded: input.encoded });
  }
  return result;
}

/** The accepted values compared with the stored ones (by field id): what changes. */
function compareWithStored(accepted: AcceptedValues, stored: ReadonlyMap<string, string>): PlannedValues {
  const result: PlannedValues = {
    problems: accepted.problems,
    formsWithValues: [],
    changedForms: new Set(),
    changedFieldIds: [],
    person: {},
    rows: [],
    answers: new Map(),
  };
  for (const { field, encoded } of accepted.accepted) {
    if (!result.formsWithValues.includes(field.formId)) result.formsWithValues.push(field.formId);
    const previous = stored.get(field.id);
    const unchanged =
      previous === encoded || (previous === undefined && answerIsEmpty(decodeAnswer(field.fieldType, encoded)));
    if (unchanged) continue;
    result.changedForms.add(field.formId);
    result.changedFieldIds.push(field.id);
    result.rows.push({ fieldId: field.id, value: encoded });
    result.answers.set(field.id, encoded);
    const attribute = personAttributeOf(field.name);
    if (attribute) {
      const text = encoded.trim();
      result.person[attribute] = text === "" ? null : text;
    }
  }
  return result;
}

/**
 * The values of a registration that holds none yet (create): what writing `values` writes, with
 * its problems, without reading anything. `fields` are the project's fields the keys name.
 */
export function planNewValues(
  values: Record<string, unknown>,
  fields: readonly FieldDefinition[],
  options: Pick<SaveValuesOptions, "projectId" | "cloginId" | "forms" | "consumedKeys">,
): PlannedValues {
  return compareWithStored(acceptValues(values, fields, options), new Map());
}

/** Writes planned values to a registration: one statement (none without rows). */
export async function writePlannedValues(
  em: EntityManager,
  registrationId: number,
  planned: PlannedValues,
  now: Date,
): Promise<void> {
  await upsertFieldValues(
    em,
    planned.rows.map((row) => ({ registrationId, fieldId: row.fieldId, value: row.value, updatedAt: now })),
  );
}

export async function saveFieldValues(
  em: EntityManager,
  values: Record<string, unknown>,
  options: SaveValuesOptions,
): Promise<PlannedValues> {
  const fieldKeys = Object.keys(values).filter((key) => !key.startsWith("_"));
  const fields = options.preread?.fields ?? (await readFieldsByKeys(em, options.projectId, fieldKeys));
  const accepted = acceptValues(values, fields, options);
  const stored =
    options.preread?.stored ??
    (await readStoredValues(
      em,
      options.registrationId,
      accepted.accepted.map((a) => a.field.id),
    ));
  const planned = compareWithStored(accepted, stored);
  await writePlannedValues(em, options.registrationId, planned, options.now);
  return planned;
}
