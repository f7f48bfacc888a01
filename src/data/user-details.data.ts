import type { EntityManager } from "typeorm";
import { selectRows, sqlPlaceholders } from "./sql-rows";

// SQL of users get_info selectors (contract §11), for any number of registrations at once
// (get_user_list answers them per record): each read is one statement, whatever the number of
// users, forms, fields, children, cart lines or payments.

const FORM_SET_ROW = {
  registration_id: "int",
  form_id: "int",
  form_name: "text",
  mandatory: "flag",
  audience: "text",
  completed: "flag",
  completed_at: "dateOrNull",
} as const;

/** Each registration's form set in form order. */
export function readFormSetRows(em: EntityManager, uids: readonly number[]) {
  if (uids.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    FORM_SET_ROW,
    `SELECT rf.registration_id, f.id AS form_id, f.name AS form_name, f.mandatory, f.audience, rf.completed, rf.completed_at
       FROM registration_form rf JOIN form f ON f.id = rf.form_id
      WHERE rf.registration_id IN (${sqlPlaceholders(uids.length)})
      ORDER BY f.sort_order, f.id`,
    uids,
  );
}

const FIELD_ROW = {
  field_id: "text",
  form_id: "int",
  name: "textOrNull",
  label: "text",
  field_type: "text",
  mandatory: "flag",
  choice_options: "textOrNull",
} as const;

const FIELD_COLUMNS = "f.id AS field_id, f.form_id, f.name, f.label, f.field_type, f.mandatory, f.choice_options";

/** Fields of the given forms, in form and field order. */
export function readFieldsOfForms(em: EntityManager, formIds: readonly number[]) {
  if (formIds.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    FIELD_ROW,
    `SELECT ${FIELD_COLUMNS} FROM field f JOIN form fo ON fo.id = f.form_id
      WHERE f.form_id IN (${sqlPlaceholders(formIds.length)})
      ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
    formIds,
  );
}

/** Fields of the project named by identifier or mapped name (to tell "not in the user's forms" from "unknown"). */
export function readProjectFieldsByKeys(em: EntityManager, groupId: number, keys: readonly string[]) {
  if (keys.length === 0) return Promise.resolve([]);
  const list = sqlPlaceholders(keys.length);
  return selectRows(
    em,
    FIELD_ROW,
    `SELECT ${FIELD_COLUMNS} FROM field f WHERE f.project_id = ? AND (f.id IN (${list}) OR f.name IN (${list}))`,
    [groupId, ...keys, ...keys],
  );
}

/** Stored answers (encoded) of the given registrations. */
export function readStoredAnswers(em: EntityManager, uids: readonly number[]) {
  if (uids.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    { registration_id: "int", field_id: "text", value: "text" },
    `SELECT registration_id, field_id, value FROM field_value WHERE registration_id IN (${sqlPlaceholders(uids.length)})`,
    uids,
  );
}

/** Registrations of families headed by the given clogin_ids in a project: the heads and their children, by uid. */
export function readFamilies(em: EntityManager, groupId: number, headCloginIds: readonly number[]) {
  if (headCloginIds.length === 0) return Promise.resolve([]);
  const list = sqlPlaceholders(headCloginIds.length);
  return selectRows(
    em,
    { uid: "int", person_id: "int", connected_to: "intOrNull" },
    `SELECT r.uid, r.person_id, r.connected_to FROM registration r
      WHERE r.project_id = ? AND (r.person_id IN (${list}) OR r.connected_to IN (${list}))
      ORDER BY r.uid`,
    [groupId, ...headCloginIds, ...headCloginIds],
  );
}

/** Cart lines of the given registrations, oldest first. */
export function readCartLines(em: EntityManager, uids: readonly number[]) {
  if (uids.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    {
      id: "int",
      registration_id: "int",
      product_id: "int",
      product_name: "text",
      quantity: "int",
      unit_price_cents: "int",
      remark: "textOrNull",
      recurring_start_date: "dateOrNull",
      created_at: "date",
    },
    `SELECT c.id, c.registration_id, c.product_id, p.name AS product_name, c.quantity, c.unit_price_cents, c.remark,
            c.recurring_start_date, c.created_at
       FROM cart_line c JOIN product p ON p.id = c.product_id
      WHERE c.registration_id IN (${sqlPlaceholders(uids.length)})
      ORDER BY c.id`,
    uids,
  );
}

/** Payments of the given registrations, oldest first. */
export function readPayments(em: EntityManager, uids: readonly number[]) {
  if (uids.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    {
      id: "int",
      registration_id: "int",
      amount_cents: "int",
      paid_at: "date",
      method: "textOrNull",
      note: "textOrNull",
    },
    `SELECT id, registration_id, amount_cents, paid_at, method, note FROM payment
      WHERE registration_id IN (${sqlPlaceholders(uids.length)})
      ORDER BY paid_at, id`,
    uids,
  );
}

/** UTM attribution of the given registrations. */
export function readUtm(em: EntityManager, uids: readonly number[]) {
  if (uids.length === 0) return Promise.resolve([]);
  return selectRows(
    em,
    {
      uid: "int",
      utm_campaign: "textOrNull",
      utm_content: "textOrNull",
      utm_id: "textOrNull",
      utm_medium: "textOrNull",
      utm_source: "textOrNull",
      utm_term: "textOrNull",
    },
    `SELECT uid, utm_campaign, utm_content, utm_id, utm_medium, utm_source, utm_term FROM registration
      WHERE uid IN (${sqlPlaceholders(uids.length)})`,
    uids,
  );
}
