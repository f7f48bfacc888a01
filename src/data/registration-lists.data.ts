import type { EntityManager } from "typeorm";
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
import { compareText, decodeJsonRows, jsonObjectsSql } from "./sql-rows";

// A registration's lists (form set, its forms' fields, stored answers, email history) as JSON
// columns of the statement that reads its summary: a nested user read is then one statement and
// one round trip, where a loader per list costs one each plus the snapshot around them. Each list
// is a scalar subquery per row (the registration's own index range), so no GROUP BY builds a
// temporary table over the TEXT columns. The aggregates' order is not defined on every server
// (MySQL's JSON_ARRAYAGG takes no ORDER BY): each list is put in the order of its loader's
// statement after decoding, from sort keys read with it.

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

const LIST_SQL: Readonly<Record<ListName, (em: EntityManager) => string>> = {
  formSet: (em) => `SELECT ${jsonObjectsSql(em, FORM_STATE_MEMBERS)}
      FROM registration_form rf JOIN form fo ON fo.id = rf.form_id WHERE rf.registration_id = r.uid`,
  formFields: (em) => `SELECT ${jsonObjectsSql(em, FIELD_SORT_MEMBERS)}
      FROM registration_form rf JOIN field f ON f.form_id = rf.form_id WHERE rf.registration_id = r.uid`,
  answers: (em) => `SELECT ${jsonObjectsSql(em, ANSWER_MEMBERS)}
      FROM field_value v JOIN field f ON f.id = v.field_id JOIN form fo ON fo.id = f.form_id
     WHERE v.registration_id = r.uid`,
  emails: (em) => `SELECT ${jsonObjectsSql(em, EMAIL_MEMBERS)}
      FROM email_record e LEFT JOIN outbox_email o ON o.message_id = e.message_id AND e.message_id IS NOT NULL
     WHERE e.registration_id = r.uid`,
};

const LIST_NAMES = Object.keys(LIST_SQL) as ListName[];

// Each list's subquery by dialect, built once (it depends on nothing else), not on every read.
const subqueries = new Map<string, string>();
function listSubquery(em: EntityManager, list: ListName): string {
  const key = `${em.connection.options.type}:${list}`;
  let sql = subqueries.get(key);
  if (sql === undefined) subqueries.set(key, (sql = `(${LIST_SQL[list](em)})`));
  return sql;
}
const columnOf = (list: ListName) => `list_${list}`;

/**
 * The select-list entries of the wanted lists for a statement whose registration alias is `r`,
 * and their parameters (which precede every other parameter of the statement): a list for the
 * person alone or their children alone is read under a CASE on the person's id.
 */
export function registrationListsSql(
  em: EntityManager,
  wanted: RegistrationListsWanted,
  personId: number,
): { columns: string[]; parameters: number[] } {
  const columns: string[] = [];
  const parameters: number[] = [];
  for (const list of LIST_NAMES) {
    const owners = wanted[list];
    if (!owners) continue;
    const subquery = listSubquery(em, list);
    if (owners === "family") columns.push(`${subquery} AS ${columnOf(list)}`);
    else {
      columns.push(
        `CASE WHEN r.person_id ${owners === "person" ? "=" : "<>"} ? THEN ${subquery} END AS ${columnOf(list)}`,
      );
      parameters.push(personId);
    }
  }
  return { columns, parameters };
}

const readsFor = (owners: ListOwners | undefined, isPerson: boolean): boolean =>
  owners === "family" || (owners === "person" && isPerson) || (owners === "children" && !isPerson);

const byFormOrder = (a: { form_sort: number; form_id: number }, b: { form_sort: number; form_id: number }) =>
  a.form_sort - b.form_sort || a.form_id - b.form_id;
const byFieldOrder = (a: { field_sort: number; field_id: string }, b: { field_sort: number; field_id: string }) =>
  a.field_sort - b.field_sort || compareText(a.field_id, b.field_id);

/** The lists of one row of a statement built with registrationListsSql; `isPerson`: the read person's row. */
export function decodeRegistrationLists(
  raw: Record<string, unknown>,
  wanted: RegistrationListsWanted,
  isPerson: boolean,
  sql: string,
): RegistrationLists {
  const lists: RegistrationLists = {};
  if (readsFor(wanted.formSet, isPerson)) {
    const rows = decodeJsonRows({ ...FORM_STATE_SHAPE, form_sort: "int" }, raw[columnOf("formSet")], sql);
    lists.formSet = rows.sort(byFormOrder).map((row) => ({
      uid: row.registration_id,
      form: toForm(row),
      completed: row.completed,
      completedAt: row.completed_at,
      submittedAt: row.submitted_at,
    }));
  }
  if (readsFor(wanted.formFields, isPerson)) {
    const rows = decodeJsonRows({ ...FIELD_SHAPE, field_sort: "int" }, raw[columnOf("formFields")], sql);
    const fields = new Map<number, FieldDefinition[]>();
    for (const row of rows.sort(byFieldOrder)) {
      const list = fields.get(row.field_form_id);
      if (list) list.push(toField(row));
      else fields.set(row.field_form_id, [toField(row)]);
    }
    lists.formFields = fields;
  }
  if (readsFor(wanted.answers, isPerson)) {
    const rows = decodeJsonRows(
      {
        ...FIELD_SHAPE,
        field_sort: "int",
        registration_id: "int",
        value: "text",
        updated_at: "date",
        form_sort: "int",
      },
      raw[columnOf("answers")],
      sql,
    );
    lists.answers = rows
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
  if (readsFor(wanted.emails, isPerson)) {
    const rows = decodeJsonRows(EMAIL_SHAPE, raw[columnOf("emails")], sql);
    lists.emails = rows
      .sort((a, b) => a.recorded_at.getTime() - b.recorded_at.getTime() || a.id - b.id)
      .map(toEmailEntry);
  }
  return lists;
}
