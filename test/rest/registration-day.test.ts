import { readProjectCounters } from "../../src/data/project-counters.data";
import { projectTotalsOf, recountProjectCounters } from "../../src/domain/projects/project-counters";
import { MAPLE } from "../fixtures/test-fixture";
import { describeOnMysqlFamily } from "../support/database";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 26 §5: registration day in one project. 40 registrants created at once (the demo's form 301
// completes, so its triggers add a cart line, a form and an email), then 40 add_products, 40
// set_status calls and 10 children, all at once. Before the counters stopped reading the rows
// other transactions write, most of these answered 500 "Deadlock found when trying to get lock".
// Now every answer is 200, every write happened exactly once, and the totals equal a recount.

const CREATES = 40;
const ACCEPTED = 9;
const WITHDRAWN = 10;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const post = (body: Record<string, unknown>) => postRest(t.app, "users", { group_id: MAPLE.groupId, ...body });

async function countRows(sql: string, parameters: unknown[] = []): Promise<number> {
  const [row] = (await t.dataSource.query(sql, parameters)) as { n: number | string }[];
  return Number(row.n);
}

describeOnMysqlFamily("registration day: concurrent writes into one project (MariaDB/MySQL)", () => {
  it("40 creates, then 40 add_products, 40 set_status and 10 create_child at once: all 200, exact totals", async () => {
    const before = projectTotalsOf(
      (await readProjectCounters(t.dataSource.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!,
    );
    const lastEventBefore = await countRows(`SELECT COALESCE(MAX(id), 0) AS n FROM event`);

    const creates = await Promise.all(
      Array.from({ length: CREATES }, (_, i) =>
        post({
          action: "create",
          doc: { main_email: `day${i}@rush.test`, first_name: `Day${i}`, last_name: "Rush", f_301_3: "M" },
        }),
      ),
    );
    expect(creates.map((res) => [res.status, res.body.error_code])).toEqual(creates.map(() => [200, undefined]));
    const ids = creates.map((res) => Number(res.body.user_info.clogin_id));
    // Each create completed form 301 (first_name is its mandatory field) and its three triggers acted.
    for (const res of creates) expect(res.body.system_action).toEqual(expect.arrayContaining(["user_registered"]));

    const writes = await Promise.all([
      ...ids.map((id) => post({ action: "add_product", clogin_id: id, product_list: [{ p_id: 78, q: 2 }] })),
      ...ids.map((id, i) => post({ action: "set_status", clogin_id: id, status_id: i % 2 ? WITHDRAWN : ACCEPTED })),
      ...ids.slice(0, 10).map((id) => post({ action: "create_child", connected_to: id, doc: { first_name: "Kid" } })),
    ]);
    expect(writes.map((res) => [res.status, res.body.error_code])).toEqual(writes.map(() => [200, undefined]));

    // Exactly once: one registration per create and child, one cart line per trigger and per add.
    const newUids = `SELECT r.uid FROM registration r JOIN person p ON p.id = r.person_id WHERE p.main_email LIKE '%@rush.test'`;
    expect(await countRows(`SELECT COUNT(*) AS n FROM (${newUids}) x`)).toBe(CREATES);
    expect(
      await countRows(`SELECT COUNT(*) AS n FROM cart_line WHERE registration_id IN (${newUids}) AND product_id = 77`),
    ).toBe(CREATES);
    expect(
      await countRows(`SELECT COUNT(*) AS n FROM cart_line WHERE registration_id IN (${newUids}) AND product_id = 78`),
    ).toBe(CREATES);
    expect(await countRows(`SELECT COUNT(*) AS n FROM trigger_firing WHERE registration_id IN (${newUids})`)).toBe(
      CREATES * 3,
    );
    expect(await countRows(`SELECT COUNT(*) AS n FROM outbox_email WHERE registration_id IN (${newUids})`)).toBe(
      CREATES,
    );
    // Events once each: user.created per registration, cart.product_added per add, status changes.
    const events = (type: string) =>
      countRows(`SELECT COUNT(*) AS n FROM event WHERE type = ? AND id > ?`, [type, lastEventBefore]);
    expect(await events("user.created")).toBe(CREATES + 10);
    expect(await events("cart.product_added")).toBe(CREATES);
    expect(await events("user.status_changed")).toBe(CREATES);
    expect(await events("email.queued")).toBe(CREATES);

    const kept = (await readProjectCounters(t.dataSource.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId)!;
    expect(projectTotalsOf(kept).users).toBe(before.users + CREATES + 10);
    await recountProjectCounters(t.context(), MAPLE.groupId);
    const recounted = (await readProjectCounters(t.dataSource.manager, { projectId: MAPLE.groupId })).get(
      MAPLE.groupId,
    )!;
    expect(kept).toEqual(recounted);
  });
});
