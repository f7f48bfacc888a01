import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Changes since (issue 25): registration.updated_at moves with every change to the registration,
// its values, forms, cart, status or emails, in the write's own transaction; get_user_list
// doc.modified_since and GraphQL users(filter: {updatedSince}) read it (docs/changes-since.md).

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
  // Every registration "last changed" long ago, so a change shows.
  await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
});
afterEach(() => t.close());

const OLD = new Date("2020-01-01T00:00:00.000Z");
const sqlTime = (date: Date) =>
  t.dataSource.options.type === "better-sqlite3" ? date.toISOString().replace("T", " ").replace("Z", "") : date;
const users = (body: Record<string, unknown>) => postRest(t.app, "users", { group_id: MAPLE.groupId, ...body });
const list = (doc: Record<string, unknown>) => users({ action: "get_user_list", doc });
/** updated_at of each registration of the Maple project, by clogin_id. */
async function updatedAt(): Promise<Map<number, number>> {
  const rows: { person_id: number; updated_at: string | Date }[] = await t.dataSource.query(
    `SELECT person_id, updated_at FROM registration WHERE project_id = ?`,
    [MAPLE.groupId],
  );
  return new Map(
    rows.map((row) => [
      Number(row.person_id),
      (row.updated_at instanceof Date ? row.updated_at : new Date(`${row.updated_at}Z`)).getTime(),
    ]),
  );
}
/** The clogin_ids whose updated_at moved past OLD. */
const moved = async () => [...(await updatedAt())].filter(([, at]) => at > OLD.getTime()).map(([cloginId]) => cloginId);
const wire = (date: Date) => date.toISOString().slice(0, 19).replace("T", " ");

describe("registration.updated_at", () => {
  it("moves with a value update, a status change, a cart line, an email and a form marked complete; only for the registration changed", async () => {
    const changes: [string, Record<string, unknown>][] = [
      ["update", { action: "update", clogin_id: MAPLE.bill, doc: { first_name: "Billy" } }],
      ["set_status", { action: "set_status", clogin_id: MAPLE.bill, status_id: 9 }],
      ["add_product", { action: "add_product", clogin_id: MAPLE.bill, product_list: [{ p_id: 78, q: 1 }] }],
      [
        "add_email",
        {
          action: "add_email",
          clogin_id: MAPLE.bill,
          doc: { email_list: [{ from: "a@maple.test", to: "b@maple.test", subject: "S", body: "B" }] },
        },
      ],
      ["mark_forms_complete", { action: "update", clogin_id: MAPLE.bill, mark_forms_complete: "all", doc: {} }],
    ];
    for (const [name, body] of changes) {
      await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
      const before = Date.now();
      const res = await users(body);
      expect([name, res.status, res.body.error_code]).toEqual([name, 200, undefined]);
      expect([name, await moved()]).toEqual([name, [MAPLE.bill]]);
      expect((await updatedAt()).get(MAPLE.bill)!).toBeGreaterThanOrEqual(before - 1000);
    }
  });

  it("a create stamps the new registration; a call that fails or changes nothing leaves updated_at alone", async () => {
    const created = await users({ action: "create", doc: { main_email: "new@maple.test" }, submit_forms: false });
    expect(created.status).toBe(200);
    expect(await moved()).toEqual([Number(created.body.user_info.clogin_id)]);
    await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
    const failed = await users({ action: "set_status", clogin_id: MAPLE.bill, status_id: 999999 });
    expect(failed.status).toBe(400);
    await users({ action: "set_status", clogin_id: MAPLE.miles, status_id: 9 });
    await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
    // The same status again changes nothing, and so does a value equal to the stored one.
    const same = await users({ action: "set_status", clogin_id: MAPLE.miles, status_id: 9 });
    expect(same.status).toBe(200);
    expect(await moved()).toEqual([]);
  });
  it("a child's change stamps its parent too (the parent's answer holds its children); the parent's own change stamps only the parent", async () => {
    const child = await users({
      action: "add_product",
      clogin_id: MAPLE.childKind,
      product_list: [{ p_id: 78, q: 1 }],
    });
    expect([child.status, child.body.error_code]).toEqual([200, undefined]);
    expect((await moved()).sort()).toEqual([MAPLE.miles, MAPLE.childKind].sort());
    await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
    const status = await users({ action: "set_status", clogin_id: MAPLE.childKind, status_id: 9 });
    expect([status.status, status.body.error_code]).toEqual([200, undefined]);
    expect((await moved()).sort()).toEqual([MAPLE.miles, MAPLE.childKind].sort());
    await t.dataSource.query(`UPDATE registration SET updated_at = ?`, [sqlTime(OLD)]);
    const parent = await users({ action: "update", clogin_id: MAPLE.miles, doc: { first_name: "Milo" } });
    expect(parent.status).toBe(200);
    expect(await moved()).toEqual([MAPLE.miles]);
  });
});

describe("get_user_list doc.modified_since and GraphQL users(filter: {updatedSince})", () => {
  it("lists exactly the registrations changed since the time, oldest change first; children as records of their own", async () => {
    const since = new Date(Date.now() - 1000);
    await users({ action: "update", clogin_id: MAPLE.bill, doc: { first_name: "Billy" } });
    await users({ action: "update", clogin_id: MAPLE.childKind, doc: { first_name: "Kindest" } });
    await users({ action: "update", clogin_id: MAPLE.miles, doc: { first_name: "Miles D." } });
    // Bill's status is an excluding one: with_excluded lists him as the legacy list would.
    const res = await list({ modified_since: wire(since), with_excluded: true });
    expect(res.status).toBe(200);
    expect(
      res.body.users.map((user: { user_info: { clogin_id: string } }) => Number(user.user_info.clogin_id)),
    ).toEqual([MAPLE.bill, MAPLE.miles]);
    expect(
      res.body.children.map((user: { user_info: { clogin_id: string } }) => Number(user.user_info.clogin_id)),
    ).toEqual([MAPLE.childKind]);
    expect(res.body.total_users).toBe(3);
    expect(res.body.next_starting_position).toBeNull();
    const parents = await list({ modified_since: wire(since), only_parents: true, with_excluded: true });
    expect(parents.body.users).toHaveLength(2);
    expect(parents.body.children).toEqual([]);
    const later = await list({ modified_since: wire(new Date(Date.now() + 60_000)) });
    expect([later.body.users, later.body.children, later.body.total_users]).toEqual([[], [], 0]);

    const gql = await graphql(
      t.app,
      `query($since: DateTime) { users(groupId: ${MAPLE.groupId}, filter: { updatedSince: $since }) {
        totalCount edges { node { cloginId metaInfo { updatedAt } } } } }`,
      { since: since.toISOString() },
    );
    expect(gql.errors).toBeUndefined();
    const connection = (
      gql.data as {
        users: { totalCount: number; edges: { node: { cloginId: number; metaInfo: { updatedAt: string } } }[] };
      }
    ).users;
    expect(connection.edges.map((edge) => edge.node.cloginId).sort()).toEqual(
      [MAPLE.bill, MAPLE.childKind, MAPLE.miles].sort(),
    );
    expect(connection.totalCount).toBe(3);
    for (const { node } of connection.edges)
      expect(new Date(node.metaInfo.updatedAt).getTime()).toBeGreaterThanOrEqual(since.getTime() - 1000);
  });

  it("walks pages of 50 in (updated_at, uid) order; each changed registration once", async () => {
    const since = new Date(Date.now() - 1000);
    const made: number[] = [];
    for (let i = 0; i < 55; i += 1) {
      const res = await users({ action: "create", doc: { main_email: `walk${i}@maple.test` }, submit_forms: false });
      made.push(Number(res.body.user_info.clogin_id));
    }
    const first = await list({ modified_since: wire(since) });
    expect(first.body.users).toHaveLength(50);
    expect(first.body.total_users).toBe(55);
    expect(first.body.next_starting_position).toBe(50);
    const second = await list({ modified_since: wire(since), starting_position: 50 });
    expect(second.body.next_starting_position).toBeNull();
    const seen = [...first.body.users, ...second.body.users].map((user: { user_info: { clogin_id: string } }) =>
      Number(user.user_info.clogin_id),
    );
    expect(seen).toEqual(made);
  });

  it("a bad time is a 400 naming doc.modified_since (REST) and refused by the DateTime scalar (GraphQL); with return_families it is refused", async () => {
    for (const bad of ["2026-13-01 00:00:00", "yesterday", "2026-01-01", 1700000000]) {
      const res = await list({ modified_since: bad });
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe("VALIDATION_FAILED");
      expect(res.body.errors[0].path).toBe("doc.modified_since");
      expect(res.body.msg).toMatch(/^doc\.modified_since must be a date and time as YYYY-MM-DD HH:MM:SS \(UTC\), got /);
    }
    const families = await list({ modified_since: "2026-01-01 00:00:00", return_families: true });
    expect(families.status).toBe(400);
    expect(families.body.errors[0].path).toBe("doc.return_families");
    const gql = await graphql(
      t.app,
      `{ users(groupId: ${MAPLE.groupId}, filter: { updatedSince: "yesterday" }) { totalCount } }`,
    );
    expect(gql.errors?.[0].extensions?.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
  });
});
