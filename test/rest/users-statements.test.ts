import { startTestApp, type TestApp } from "../support/test-app";
import { fixtureWith } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { STATEMENT_COUNTING } from "../support/test-config";

// Issue 3: user_info / meta_info and the whole users call cost a fixed number of SQL statements,
// whatever the number of forms (and triggers, values, emails) involved. Two projects of the same
// shape: one with 1 form, one with 50; every form has a mandatory text field, a choice field and
// two triggers.

const SMALL = { groupId: 100909090, firstFormId: 8001, forms: 1, user: 730001 };
const LARGE = { groupId: 100909091, firstFormId: 8101, forms: 50, user: 730002 };
type Shape = typeof SMALL;

function project(shape: Shape, productId: number) {
  const formIds = Array.from({ length: shape.forms }, (_, i) => shape.firstFormId + i);
  return {
    id: shape.groupId,
    name: `Forms ×${shape.forms}`,
    products: [{ id: productId, name: "Fee", price: "10.00" }],
    forms: formIds.map((id) => ({
      id,
      name: `Form ${id}`,
      mandatory: true,
      fields: [
        { id: `f_${id}_1`, label: "Name", type: "text", mandatory: true },
        { id: `f_${id}_2`, label: "Pick", type: "multiple_choice", options: ["<b>One</b>", "Two"] },
      ],
    })),
    triggers: formIds.flatMap((id) => [
      { formId: id, action: "send_email", to: "main_email", subject: `Form ${id}`, body: "Thanks" },
      { formId: id, action: "add_product", productId, quantity: 1 },
    ]),
    users: [1, 2, 3].map((n) => ({
      cloginId: shape.user + n * 10,
      username: `u${shape.forms}-${n}@count.test`,
      mainEmail: `u${shape.forms}-${n}@count.test`,
      firstName: "Count",
      applicationDate: "2026-05-01 08:00:00",
    })),
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    fixture: fixtureWith([project(SMALL, 91), project(LARGE, 92)]),
    config: STATEMENT_COUNTING,
  });
});
afterAll(() => t.close());

const formIdsOf = (shape: Shape) => Array.from({ length: shape.forms }, (_, i) => shape.firstFormId + i);

// The API account is kept for a few seconds after a request reads it (src/auth/account-cache.ts):
// an unmeasured request just before each measured one puts every measurement in the same state.
async function statementsOf(body: Record<string, unknown>): Promise<number> {
  await postRest(t.app, "projects", { action: "get_project_list" });
  const { statements, result } = await t.countStatements(() => postRest(t.app, "users", body));
  expect(result.status).toBe(200);
  return statements;
}

describe("statement counts do not grow with the number of forms (issue 3)", () => {
  it("update of one field (its form submitted, two triggers fired): the same count for a user with 1 form and with 50", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      const formId = shape.firstFormId;
      counts.push(
        await statementsOf({
          action: "update",
          group_id: shape.groupId,
          clogin_id: shape.user + 10,
          doc: { [`f_${formId}_1`]: "Ada", [`f_${formId}_2`]: ["one"] },
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it("update with a value in every form (1 vs 50 forms submitted, 2 vs 100 triggers): the same count", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      const doc = Object.fromEntries(
        formIdsOf(shape).flatMap((id) => [
          [`f_${id}_1`, "Bea"],
          [`f_${id}_2`, ["Two"]],
        ]),
      );
      const before = await postRest(t.app, "users", {
        action: "update",
        group_id: shape.groupId,
        clogin_id: shape.user + 20,
        doc: { [`f_${shape.firstFormId}_2`]: ["Two"] },
        submit_forms: false,
      });
      expect(before.status).toBe(200);
      counts.push(await statementsOf({ action: "update", group_id: shape.groupId, clogin_id: shape.user + 20, doc }));
      const after = await postRest(t.app, "users", {
        action: "update",
        group_id: shape.groupId,
        clogin_id: shape.user + 20,
        mark_forms_complete: [],
      });
      expect(after.body.meta_info).toMatchObject({
        completed_forms: String(shape.forms),
        total_order: `${shape.forms * 10}.00`,
      });
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it('mark_forms_complete "all" with values (every form newly complete, triggers fired, notices built): the same count for 1 and 50 forms', async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      counts.push(
        await statementsOf({
          action: "update",
          group_id: shape.groupId,
          clogin_id: shape.user + 30,
          doc: { [`f_${shape.firstFormId}_2`]: ["Two"] },
          mark_forms_complete: "all",
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it("create with a value (1 vs 50 initial forms): the same count", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      counts.push(
        await statementsOf({
          action: "create",
          group_id: shape.groupId,
          clogin_id: false,
          doc: {
            main_email: `new-${shape.forms}@count.test`,
            password: "secret1",
            first_name: "New",
            [`f_${shape.firstFormId}_1`]: "New",
          },
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it("add_email: 1 email and 100 emails (with admin ids) cost the same", async () => {
    const email = { from: "a@count.test", to: "b@count.test", subject: "s", body: "b", admin_id: 501 };
    const one = await statementsOf({
      action: "add_email",
      group_id: 100909072,
      clogin_id: 102670540,
      doc: { email_list: email },
    });
    const hundred = await statementsOf({
      action: "add_email",
      group_id: 100909072,
      clogin_id: 102670540,
      doc: { email_list: Array.from({ length: 100 }, () => email) },
    });
    expect(hundred).toBe(one);
  });

  it("add_email: 6 statements (BEGIN, the family's lock by its updated_at, the summary with its ownership, the emails, the events, COMMIT); with admin ids, their check is one more", async () => {
    const email = { from: "a@count.test", to: "b@count.test", subject: "s", body: "b" };
    const body = { action: "add_email", group_id: 100909072, clogin_id: 102670540 };
    expect(await statementsOf({ ...body, doc: { email_list: email } })).toBe(6);
    expect(await statementsOf({ ...body, doc: { email_list: { ...email, admin_id: 501 } } })).toBe(7);
  });
});

// Issue 12: the per-request budgets. BEGIN/START TRANSACTION and COMMIT count as statements.
describe("statement budgets per request (issue 12)", () => {
  it("update with an unchanged value: at most 5 (BEGIN, locking lookup with ownership, forms+fields+values, summary, COMMIT)", async () => {
    const body = {
      action: "update",
      group_id: SMALL.groupId,
      clogin_id: SMALL.user + 30,
      doc: { [`f_${SMALL.firstFormId}_1`]: "Same" },
      submit_forms: false,
    };
    expect((await postRest(t.app, "users", body)).status).toBe(200);
    expect(await statementsOf(body)).toBeLessThanOrEqual(5);
  });

  it("get_info without selectors (meta_info): 1 statement, ownership and registration included", async () => {
    for (const shape of [SMALL, LARGE]) {
      expect(await statementsOf({ action: "get_info", group_id: shape.groupId, clogin_id: shape.user + 10 })).toBe(1);
    }
  });

  it("get_info of a foreign or unknown project and of an unregistered user: still 1 statement, the same answers", async () => {
    await postRest(t.app, "projects", { action: "get_project_list" });
    for (const [body, code] of [
      [{ action: "get_info", group_id: 424242, clogin_id: SMALL.user + 10 }, "FORBIDDEN"],
      [{ action: "get_info", group_id: SMALL.groupId, clogin_id: 424242 }, "USER_NOT_FOUND"],
    ] as const) {
      const { statements, result } = await t.countStatements(() => postRest(t.app, "users", body));
      expect(result.body.error_code).toBe(code);
      expect(statements).toBe(1);
    }
  });

  it("update for someone not registered (seed §7 case 1): START TRANSACTION, the lookup, ownership (only then), COMMIT", async () => {
    const body = { action: "update", group_id: SMALL.groupId, clogin_id: 424242, doc: { f_8001_1: "Ada" } };
    expect(await statementsOf(body)).toBe(4);
    expect(await statementsOf({ ...body, mark_forms_complete: [SMALL.firstFormId] })).toBe(4);
  });

  it("get_project_list with totals: 1 statement (the list with its counters proves ownership); without totals 1; a foreign group_id is FORBIDDEN", async () => {
    await postRest(t.app, "projects", { action: "get_project_list" });
    const body = {
      action: "get_project_list",
      group_id: SMALL.groupId,
      doc: { with_archived: true, with_group_totals: true },
    };
    const listed = await t.countStatements(() => postRest(t.app, "projects", body));
    expect(listed.result.status).toBe(200);
    expect(listed.statements).toBe(1);
    const plain = await t.countStatements(() => postRest(t.app, "projects", { ...body, doc: {} }));
    expect(plain.result.status).toBe(200);
    expect(plain.statements).toBe(1);
    const foreign = await postRest(t.app, "projects", { ...body, group_id: 424242 });
    expect(foreign.body.error_code).toBe("FORBIDDEN");
  });
});
