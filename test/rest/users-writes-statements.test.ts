import { startTestApp, type TestApp } from "../support/test-app";
import { fixtureWith } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { STATEMENT_COUNTING } from "../support/test-config";

// Contract §13–§14 and issue 8: add_product, set_status and create_child cost a fixed number of SQL
// statements, whatever the number of products added or of initial forms. Two family projects of the
// same shape: one with 1 initial form and 1 product, one with 50 of each.

const SMALL = { groupId: 100909190, firstFormId: 9001, firstProductId: 9501, size: 1, parent: 740001 };
const LARGE = { groupId: 100909191, firstFormId: 9101, firstProductId: 9601, size: 50, parent: 740002 };
type Shape = typeof SMALL;

const range = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i);

function project(shape: Shape) {
  return {
    id: shape.groupId,
    name: `Writes ×${shape.size}`,
    familySystem: true,
    statuses: [{ id: shape.groupId % 1000, name: "Accepted", color: "#00AA00" }],
    categories: [{ id: shape.groupId % 1000, name: "All", quotaOrdered: 999 }],
    products: range(shape.firstProductId, shape.size).map((id) => ({
      id,
      name: `Product ${id}`,
      price: "10.00",
      baseType: 7,
      categoryId: shape.groupId % 1000,
    })),
    forms: range(shape.firstFormId, shape.size).map((id) => ({
      id,
      name: `Form ${id}`,
      fields: [{ id: `f_${id}_1`, label: "Name", type: "text" }],
    })),
    users: [
      { cloginId: shape.parent, username: `parent-${shape.size}@count.test`, mainEmail: `p${shape.size}@c.test` },
    ],
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: fixtureWith([project(SMALL), project(LARGE)]), config: STATEMENT_COUNTING });
});
afterAll(() => t.close());

// The API account is kept for a few seconds (src/auth/account-cache.ts): an unmeasured request
// just before each measured one puts every measurement in the same state.
async function statementsOf(body: Record<string, unknown>): Promise<number> {
  await postRest(t.app, "projects", { action: "get_project_list" });
  const { statements, result } = await t.countStatements(() => postRest(t.app, "users", body));
  expect([result.status, result.body.error_code]).toEqual([200, undefined]);
  return statements;
}

describe("statement counts do not grow with the size of the call (issue 8)", () => {
  it("add_product with 1 and with 50 entries: the same count", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      counts.push(
        await statementsOf({
          action: "add_product",
          group_id: shape.groupId,
          clogin_id: shape.parent,
          product_list: range(shape.firstProductId, shape.size).map((id) => ({ p_id: id, q: 1 })),
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it("create_child with 1 and with 50 initial forms: the same count", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      counts.push(
        await statementsOf({
          action: "create_child",
          group_id: shape.groupId,
          connected_to: shape.parent,
          doc: { first_name: "Kid" },
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it("set_status: the same count in both projects, and a fixed small number", async () => {
    const counts = [];
    for (const shape of [SMALL, LARGE]) {
      counts.push(
        await statementsOf({
          action: "set_status",
          group_id: shape.groupId,
          clogin_id: shape.parent,
          status_id: shape.groupId % 1000,
        }),
      );
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(10);
  });
});
