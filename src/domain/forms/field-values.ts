import type { EntityManager } from "typeorm";
import {
  readFieldsByKeys,
  readStoredValues,
  upsertFieldValues,
  type FieldDefinition,
  type RegistrationFormState,
  type ValueTargets,
} from "../../data/forms.data";
import { isEmailAddress } from "../../common/email";
import { PERSON_FIELD_MAX_LENGTH } from "../users/person-fields";
import { answerIsEmpty, decodeAnswer } from "./field-value-codec";
import { interpretFieldInput } from "./field-input";
import { clientValue } from "../../common/client-value";

// Writing `doc` values (contract §4): by field identifier or mapped name; system fields, unknown
// fields, unknown answers and fields of forms the user does not have are not written, and each
// gets a notice naming the key and the reason. Everything else is written in two statements.

/** Mapped names that also set the person's own data, so the displayed name follows the forms. */
export const PERSON_FIELD_NAMES = {
  first_name: { attribute: "firstName", maxLength: PERSON_FIELD_MAX_LENGTH.firstName },
  last_name: { attribute: "lastName", maxLength: PERSON_FIELD_MAX_LENGTH.lastName },
  org_name: { attribute: "orgName", maxLength: PERSON_FIELD_MAX_LENGTH.orgName },
  main_email: { attribute: "mainEmail", maxLength: PERSON_FIELD_MAX_LENGTH.mainEmail },
} as const;
export type PersonFieldName = keyof typeof PERSON_FIELD_NAMES;
export type PersonAttributes = Partial<
  Record<(typeof PERSON_FIELD_NAMES)[PersonFieldName]["attribute"], string | null>
>;

export interface SaveValuesOptions {
  registrationId: number;
  projectId: number;
  cloginId: number;
  /** The registration's form set, by form id. */
  forms: ReadonlyMap<number, RegistrationFormState>;
  /** Keys the caller has already consumed (create's person data): no notice when they name no field of the user's forms. */
  consumedKeys?: ReadonlySet<string>;
  now: Date;
  /** The fields named by the keys and their stored values, when the caller has read them already. */
  preread?: Pick<ValueTargets, "fields" | "stored">;
}

export interface SavedValues {
  notices: string[];
  /** Forms with at least one accepted value, in the order their first key was sent. */
  formsWithValues: number[];
  /** Forms in which an accepted value differs from the stored one. */
  changedForms: Set<number>;
  /** Fields whose stored value changed (user.updated names them). */
  changedFieldIds: string[];
  /** Person data carried by mapped fields whose value changed. */
  person: PersonAttributes;
}

const quote = (value: string) => clientValue(value);

export async function saveFieldValues(
  em: EntityManager,
  values: Record<string, unknown>,
  options: SaveValuesOptions,
): Promise<SavedValues> {
  const result: SavedValues = {
    notices: [],
    formsWithValues: [],
    changedForms: new Set(),
    changedFieldIds: [],
    person: {},
  };
  const keys = Object.keys(values);
  const fieldKeys = keys.filter((key) => !key.startsWith("_"));
  const fields = options.preread?.fields ?? (await readFieldsByKeys(em, options.projectId, fieldKeys));
  const byId = new Map(fields.map((field) => [field.id, field]));
  const byName = new Map(fields.filter((field) => field.name !== null).map((field) => [field.name!, field]));

  const accepted: { key: string; field: FieldDefinition; encoded: string }[] = [];
  const keyOfField = new Map<string, string>();
  for (const key of keys) {
    const name = quote(key);
    if (key.startsWith("_")) {
      result.notices.push(`${name} is a system field and cannot be updated; it was not written.`);
      continue;
    }
    const field = byId.get(key) ?? byName.get(key);
    if (!field) {
      if (!options.consumedKeys?.has(key))
        result.notices.push(`${name} is not a field of project ${options.projectId}; it was not written.`);
      continue;
    }
    const form = options.forms.get(field.formId);
    if (!form) {
      if (options.consumedKeys?.has(key)) continue;
      result.notices.push(
        `${name} belongs to form ${field.formId}, which user ${options.cloginId} does not have; it was not written.`,
      );
      continue;
    }
    const earlier = keyOfField.get(field.id);
    if (earlier !== undefined) {
      result.notices.push(
        `${name} names the same field as ${quote(earlier)} (${field.id}); only ${quote(earlier)} was written.`,
      );
      continue;
    }
    const input = interpretFieldInput(key, field, values[key]);
    result.notices.push(...input.notices);
    if (!input.accepted) continue;
    const personField =
      field.name !== null && field.name in PERSON_FIELD_NAMES
        ? PERSON_FIELD_NAMES[field.name as PersonFieldName]
        : null;
    if (personField) {
      const text = input.encoded.trim();
      if (text.length > personField.maxLength) {
        result.notices.push(`${name} is longer than ${personField.maxLength} characters; it was not written.`);
        continue;
      }
      if (personField.attribute === "mainEmail" && text !== "" && !isEmailAddress(text)) {
        result.notices.push(`${name}: ${quote(text)} is not a valid email address; it was not written.`);
        continue;
      }
    }
    keyOfField.set(field.id, key);
    accepted.push({ key, field, encoded: input.encoded });
  }

  const stored =
    options.preread?.stored ??
    (await readStoredValues(
      em,
      options.registrationId,
      accepted.map((a) => a.field.id),
    ));
  const rows: { registrationId: number; fieldId: string; value: string; updatedAt: Date }[] = [];
  for (const { field, encoded } of accepted) {
    if (!result.formsWithValues.includes(field.formId)) result.formsWithValues.push(field.formId);
    const previous = stored.get(field.id);
    const unchanged =
      previous === encoded || (previous === undefined && answerIsEmpty(decodeAnswer(field.fieldType, encoded)));
    if (unchanged) continue;
    result.changedForms.add(field.formId);
    result.changedFieldIds.push(field.id);
    rows.push({ registrationId: options.registrationId, fieldId: field.id, value: encoded, updatedAt: options.now });
    if (field.name !== null && field.name in PERSON_FIELD_NAMES) {
      const text = encoded.trim();
      result.person[PERSON_FIELD_NAMES[field.name as PersonFieldName].attribute] = text === "" ? null : text;
    }
  }
  await upsertFieldValues(em, rows);
  return result;
}
