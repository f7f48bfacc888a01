import { decodeAnswer } from "./field-value-codec";
import { EMAIL_SHAPE, toEmailEntry, type EmailHistoryEntry } from "./email-history.data";
import {
  FIELD_MEMBERS,
  FIELD_SHAPE,
  FORM_MEMBERS,
  FORM_STATE_SHAPE,
  toField,
  toForm,
  type FieldDefinition,
  type RegistrationFormState,
  type StoredAnswer,
} from "./forms.data";
import { compareText, decodeRows, type ListArm, type ListSql } from "./sql-rows";

// A registration's lists (form set, its forms' fields, stored answers, email history) read by the
// statement that reads its summary, as UNION ALL arms of it (withListArms): a nested user read is
// then one statement and one round trip, where a loader per list costs one each plus the snapshot
// around them. An arm reads the list's own rows through the registration's index range, where a
// JSON aggregate per list costs MariaDB a fixed price each per read (sql-rows.ts, jsonObjectsSql).
// The rows' order is not defined: each list is put in the order of its loader's statement after
// decoding, from sort keys read with it.

/** Whose rows of a family read carry a list: the read person's, their children's, or both. */
export type ListOwners = "person" | "children" | "family";

/** The lists a summary statement reads along, and for whom; an absent list is not read. */
export interface RegistrationListsWanted {
  formSet?: ListOwners;
  /** The fields of every form in the row's form set. */
  formFields?: ListOwners;
  answers?: ListOwners;
  emails?: ListOwners;
}

/** The lists read for one registration; a list not read for it is absent (not empty). */
export interface RegistrationLists {
  formSet?: RegistrationFormState[];
  /** By form id, each in field order. */
  formFields?: Map<number, FieldDefinition[]>;
  answers?: StoredAnswer[];
  emails?: EmailHistoryEntry[];
}

type ListName = keyof RegistrationListsWanted;

const FORM_STATE_MEMBERS = [
  ...FORM_MEMBERS,
  ["registration_id", "rf.registration_id"],
  ["completed", "rf.completed"],
  ["completed_at", "rf.completed_at"],
  ["submitted_at", "rf.submitted_at"],
  ["form_sort", "fo.sort_order"],
] as const;
const FIELD_SORT_MEMBERS = [...FIELD_MEMBERS, ["field_sort", "f.sort_order"]] as const;
const ANSWER_MEMBERS = [
  ...FIELD_SORT_MEMBERS,
  ["registration_id", "v.registration_id"],
  ["value", "v.value"],
  ["updated_at", "v.updated_at"],
  ["form_sort", "fo.sort_order"],
] as const;
const EMAIL_MEMBERS = [
  ["id", "e.id"],
  ["registration_id", "e.registration_id"],
  ["from_address", "e.from_address"],
  ["to_addresses", "e.to_addresses"],
  ["cc_addresses", "e.cc_addresses"],
  ["bcc_addresses", "e.bcc_addresses"],
  ["subject", "e.subject"],
  ["body", "e.body"],
  ["admin_id", "e.admin_id"],
  ["recorded_at", "e.recorded_at"],
  ["origin", "e.origin"],
  ["message_id", "e.message_id"],
  ["delivery_status", "o.state"],
  ["delivery_attempts", "o.attempt_count"],
] as const;

const LISTS: Readonly<Record<ListName, ListSql>> = {
  formSet: {
    from: "registration_form rf JOIN form fo ON fo.id = rf.form_id",
    owner: "rf.registration_id",
    members: FORM_STATE_MEMBERS,
  },
  formFields: {
    from: "registration_form rf JOIN field f ON f.form_id = rf.form_id",
    owner: "rf.registration_id",
    members: FIELD_SORT_MEMBERS,
  },
  answers: {
    from: "field_value v JOIN field f ON f.id = v.field_id JOIN form fo ON fo.id = f.form_id",
    owner: "v.registration_id",
    members: ANSWER_MEMBERS,
  },
  emails: {
    from: "email_record e LEFT JOIN outbox_email o ON o.message_id = e.message_id AND e.message_id IS NOT NULL",
    owner: "e.registration_id",
    members: EMAIL_MEMBERS,
  },
};

const LIST_NAMES = Object.keys(LISTS) as ListName[];

/**
 * The arms reading the wanted lists beside a statement whose registrations (alias `r`, joined to
 * each list's rows by uid) `restrict` picks for the owners each list is read for.
 */
export function registrationListArms(
  wanted: RegistrationListsWanted,
  restrict: (owners: ListOwners) => { where: string; parameters: readonly unknown[] },
): ListArm[] {
  const arms: ListArm[] = [];
  for (const name of LIST_NAMES) {
    const owners = wanted[name];
    if (!owners) continue;
    const list = LISTS[name];
    arms.push({ name, list, join: `JOIN registration r ON r.uid = ${list.owner}`, ...restrict(owners) });
  }
  return arms;
}

const readsFor = (owners: ListOwners | undefined, isPerson: boolean): boolean =>
  owners === "family" || (owners === "person" && isPerson) || (owners === "children" && !isPerson);

const byFormOrder = (a: { form_sort: number; form_id: number }, b: { form_sort: number; form_id: number }) =>
  a.form_sort - b.form_sort || a.form_id - b.form_id;
const byFieldOrder = (a: { field_sort: number; field_id: string }, b: { field_sort: number; field_id: string }) =>
  a.field_sort - b.field_sort || compareText(a.field_id, b.field_id);

type ArmRows = readonly Record<string, unknown>[];

/** The fields of the read forms, by form, in the forms' own order. */
function decodeFormFields(armRows: ArmRows, sql: string): Map<number, FieldDefinition[]> {
  const rows = decodeRows({ ...FIELD_SHAPE, field_sort: "int" }, armRows, sql);
  const fields = new Map<number, FieldDefinition[]>();
  for (const row of rows.sort(byFieldOrder)) {
    const list = fields.get(row.field_form_id);
    if (list) list.push(toField(row));
    else fields.set(row.field_form_id, [toField(row)]);
  }
  return fields;
}

/** The registration's answers, each decoded by its field's type, in form then field order. */
function decodeAnswers(armRows: ArmRows, sql: string): NonNullable<RegistrationLists["answers"]> {
  const rows = decodeRows(
    {
      ...FIELD_SHAPE,
      field_sort: "int",
      registration_id: "int",
      value: "text",
      updated_at: "date",
      form_sort: "int",
    },
    armRows,
    sql,
  );
  return rows
    .sort((a, b) => a.form_sort - b.form_sort || a.field_form_id - b.field_form_id || byFieldOrder(a, b))
    .map((row) => {
      const field = toField(row);
      return {
        uid: row.registration_id,
        field,
        answer: decodeAnswer(field.fieldType, row.value),
        updatedAt: row.updated_at,
      };
    });
}

/**
 * The lists of one registration (`uid`) from the arms of a statement built with
 * registrationListArms (splitListArms); `isPerson`: the read person's registration.
 */
export function decodeRegistrationLists(
  arms: ReadonlyMap<string, ReadonlyMap<number, readonly Record<string, unknown>[]>>,
  uid: number,
  wanted: RegistrationListsWanted,
  isPerson: boolean,
  sql: string,
): RegistrationLists {
  const rowsOf = (name: ListName) => arms.get(name)?.get(uid) ?? [];
  const lists: RegistrationLists = {};
  if (readsFor(wanted.formSet, isPerson)) {
    const rows = decodeRows({ ...FORM_STATE_SHAPE, form_sort: "int" }, rowsOf("formSet"), sql);
    lists.formSet = rows.sort(byFormOrder).map((row) => ({
      uid: row.registration_id,
      form: toForm(row),
      completed: row.completed,
      completedAt: row.completed_at,
      submittedAt: row.submitted_at,
    }));
  }
  if (readsFor(wanted.formFields, isPerson)) lists.formFields = decodeFormFields(rowsOf("formFields"), sql);
  if (readsFor(wanted.answers, isPerson)) lists.answers = decodeAnswers(rowsOf("answers"), sql);
  if (readsFor(wanted.emails, isPerson)) {
    const rows = decodeRows(EMAIL_SHAPE, rowsOf("emails"), sql);
    lists.emails = rows
      .sort((a, b) => a.recorded_at.getTime() - b.recorded_at.getTime() || a.id - b.id)
      .map(toEmailEntry);
  }
  return lists;
}
