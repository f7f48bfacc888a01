import type { Express } from "express";
import type { DataSource } from "typeorm";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "./graphql";
import { postRest, type LegacyEndpoint } from "./rest";

// The concurrency matrix's family mix (issue 33 §2): a parent and two children of one project
// written at once — add_product on the children, set_status and update (its first call completes
// the parent's form 301, whose three triggers must act once) on the parent, update on the
// children, add_email on all three. Used by test/rest/concurrency-matrix.test.ts on one app, and by
// test/scale/galera-service.test.ts through two Galera nodes at once. Calls alternate REST and
// GraphQL by call number.

export const ACCEPTED = 9;
export const WITHDRAWN = 10;
export const TSHIRT = 78;

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The app a call goes to: its REST envelope and its GraphQL mutations. */
export interface WriteApi {
  rest(endpoint: LegacyEndpoint, body: Record<string, unknown>): Promise<Answer>;
  /** A mutation as one answer: 200 only when it has no errors. */
  mutation(query: string, input: Record<string, unknown>): Promise<Answer>;
}

/** The WriteApi of an in-process app, as the Maple Camps account. */
export function writeApiOf(app: Express): WriteApi {
  return {
    async rest(endpoint, body) {
      const res = await postRest(app, endpoint, { group_id: MAPLE.groupId, ...body });
      return { status: res.status, body: res.body as Record<string, unknown> };
    },
    async mutation(query, input) {
      const res = await graphql(app, query, { input });
      return { status: res.errors?.length ? 500 : res.status, body: res.body as Record<string, unknown> };
    },
  };
}

const ADD_EMAIL = `mutation($input: AddEmailInput!) { addEmail(input: $input) { user { uid } } }`;
const ADD_PRODUCT = `mutation($input: AddProductInput!) { addProduct(input: $input) { user { uid } } }`;
const SET_STATUS = `mutation($input: SetStatusInput!) { setStatus(input: $input) { user { uid } } }`;
const UPDATE_USER = `mutation($input: UpdateUserInput!) { updateUser(input: $input) { user { uid } } }`;

export function addEmail(api: WriteApi, cloginId: number, subject: string, viaGraphql: boolean): Promise<Answer> {
  const email = { from: "office@maple.test", to: "someone@collide.test", subject, body: "<p>b</p>" };
  return viaGraphql
    ? api.mutation(ADD_EMAIL, { groupId: MAPLE.groupId, cloginId, emails: [email] })
    : api.rest("users", { action: "add_email", clogin_id: cloginId, doc: { email_list: email } });
}

export function addProduct(api: WriteApi, cloginId: number, productId: number, viaGraphql: boolean): Promise<Answer> {
  return viaGraphql
    ? api.mutation(ADD_PRODUCT, { groupId: MAPLE.groupId, cloginId, productList: [{ productId, quantity: 1 }] })
    : api.rest("users", { action: "add_product", clogin_id: cloginId, product_list: [{ p_id: productId, q: 1 }] });
}

export function setStatus(api: WriteApi, cloginId: number, statusId: number, viaGraphql: boolean): Promise<Answer> {
  return viaGraphql
    ? api.mutation(SET_STATUS, { groupId: MAPLE.groupId, cloginId, statusId })
    : api.rest("users", { action: "set_status", clogin_id: cloginId, status_id: statusId });
}

export function update(
  api: WriteApi,
  cloginId: number,
  values: Record<string, string>,
  viaGraphql: boolean,
): Promise<Answer> {
  return viaGraphql
    ? api.mutation(UPDATE_USER, { groupId: MAPLE.groupId, cloginId, values })
    : api.rest("users", { action: "update", clogin_id: cloginId, doc: values });
}

export interface Family {
  parent: number;
  children: [number, number];
}

/** A new parent (form 301 left open, so the mix's first update completes it) and two children. */
export async function createFamily(api: WriteApi, email: string): Promise<Family> {
  const parent = await api.rest("users", { action: "create", doc: { main_email: email, last_name: "Collide" } });
  if (parent.status !== 200) throw new Error(`create: ${parent.status} ${JSON.stringify(parent.body)}`);
  const parentId = Number((parent.body.user_info as { clogin_id: string }).clogin_id);
  const child = async () => {
    const res = await api.rest("users", {
      action: "create_child",
      connected_to: parentId,
      doc: { first_name: "Kid" },
    });
    if (res.status !== 200) throw new Error(`create_child: ${res.status} ${JSON.stringify(res.body)}`);
    return Number((res.body.user_info as { clogin_id: string }).clogin_id);
  };
  return { parent: parentId, children: [await child(), await child()] };
}

/** Call `n` of `caller` in the mix: the caller's role is caller % 5. */
export function familyMixCall(api: WriteApi, family: Family, caller: number, n: number): Promise<Answer> {
  const { parent, children } = family;
  const viaGraphql = n % 2 === 1;
  switch (caller % 5) {
    case 0:
      return addProduct(api, children[n % 2], TSHIRT, viaGraphql);
    case 1:
      return setStatus(api, parent, n % 2 ? WITHDRAWN : ACCEPTED, viaGraphql);
    case 2:
      return update(api, parent, { f_301_1: `Parent-${caller}-${n}` }, viaGraphql);
    case 3:
      return update(api, children[n % 2], { f_301_1: `Child-${caller}-${n}` }, viaGraphql);
    default:
      return addEmail(api, [parent, ...children][n % 3], `fam-${caller}-${n}`, viaGraphql);
  }
}

async function count(db: DataSource, sql: string, parameters: unknown[] = []): Promise<number> {
  const [row] = (await db.query(sql, parameters)) as { n: number | string }[];
  return Number(row.n);
}

const uidOf = (db: DataSource, cloginId: number) =>
  count(db, `SELECT uid AS n FROM registration WHERE project_id = ? AND person_id = ?`, [MAPLE.groupId, cloginId]);

async function firingsOf(db: DataSource, cloginIds: number[]): Promise<number[]> {
  const firings: number[] = [];
  for (const cloginId of cloginIds)
    firings.push(
      await count(db, `SELECT COUNT(*) AS n FROM trigger_firing WHERE registration_id = ?`, [
        await uidOf(db, cloginId),
      ]),
    );
  return firings;
}

/** What the mix is judged against: the children's trigger firings and the last event before it. */
export interface FamilyMixBaseline {
  childFirings: number[];
  lastEventId: number;
}

export async function familyMixBaseline(db: DataSource, family: Family): Promise<FamilyMixBaseline> {
  return {
    childFirings: await firingsOf(db, family.children),
    lastEventId: await count(db, `SELECT COALESCE(MAX(id), 0) AS n FROM event`),
  };
}

/**
 * What the acknowledged calls of the mix must have left, read through `db`: every acknowledged
 * email once, every acknowledged unit in a child's cart once with its event, the parent's form 301
 * triggers once and the children's as before. Returns the problems found (an empty list when
 * all holds), so a test shows them all at once.
 */
export async function familyMixProblems(
  db: DataSource,
  family: Family,
  baseline: FamilyMixBaseline,
  acknowledged: { caller: number; n: number }[],
): Promise<string[]> {
  const problems: string[] = [];
  const members = [family.parent, ...family.children];
  const recorded = new Map<string, number>();
  for (const member of members) {
    const rows = (await db.query(
      `SELECT subject, COUNT(*) AS n FROM email_record WHERE registration_id = ? AND subject LIKE 'fam-%' GROUP BY subject`,
      [await uidOf(db, member)],
    )) as { subject: string; n: number | string }[];
    for (const row of rows) recorded.set(row.subject, Number(row.n));
  }
  const emails = acknowledged.filter((call) => call.caller % 5 === 4).map((call) => `fam-${call.caller}-${call.n}`);
  for (const subject of emails)
    if (recorded.get(subject) !== 1) problems.push(`email ${subject} recorded ${recorded.get(subject) ?? 0} times`);
  for (const [subject, n] of recorded)
    if (!emails.includes(subject)) problems.push(`unacknowledged email ${subject} recorded ${n} times`);

  const childUids = [await uidOf(db, family.children[0]), await uidOf(db, family.children[1])];
  const units = acknowledged.filter((call) => call.caller % 5 === 0).length;
  const inCarts = await count(
    db,
    `SELECT COALESCE(SUM(quantity), 0) AS n FROM cart_line WHERE registration_id IN (?, ?) AND product_id = ?`,
    [...childUids, TSHIRT],
  );
  const events = await count(db, `SELECT COUNT(*) AS n FROM event WHERE type = 'cart.product_added' AND id > ?`, [
    baseline.lastEventId,
  ]);
  if (inCarts !== units) problems.push(`${inCarts} units in the children's carts for ${units} acknowledged`);
  if (events !== inCarts) problems.push(`${events} cart.product_added events for ${inCarts} units`);
  const firings = await firingsOf(db, members);
  const expected = [3, ...baseline.childFirings];
  if (JSON.stringify(firings) !== JSON.stringify(expected))
    problems.push(`trigger firings ${JSON.stringify(firings)}, expected ${JSON.stringify(expected)}`);
  return problems;
}
