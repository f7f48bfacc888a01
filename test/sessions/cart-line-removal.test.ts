import request from "supertest";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 35 §3: a cart line removed by an API account (removeCartLine) or by the registrant's own
// session (removeMyCartLine), under the rules of adding: the registrant takes out only what
// me.project.products lets it put in; nobody takes out a product locked once funds are allocated
// while the registration has payments (the fixture's Miles has one; Bill has none). The order
// total, the project's totals and the event feed follow the removal.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const asSession = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  request(t.app)
    .post("/graphql")
    .set("Content-Type", "application/json")
    .set("Authorization", `Bearer ${token}`)
    .send({ query, variables });

async function sessionOf(cloginId: number): Promise<string> {
  const login = await postRest(t.app, "users", {
    action: "login",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: {},
  }).expect(200);
  const session = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {}).expect(200);
  return String(session.body.session_token);
}

const PAYLOAD = `removedCartLineId user { cartLines { cartLineId productId } metaInfo { totalOrder } } problems { field value reason message }`;
const REMOVE = `mutation($input: RemoveCartLineInput!) { removeCartLine(input: $input) { ${PAYLOAD} } }`;
const REMOVE_MINE = `mutation($input: RemoveMyCartLineInput!) { removeMyCartLine(input: $input) { ${PAYLOAD} } }`;
const ADD = `mutation($input: AddProductInput!) { addProduct(input: $input) { cartIds problems { message } } }`;

interface Payload {
  removedCartLineId: number | null;
  user: { cartLines: { cartLineId: number; productId: number }[]; metaInfo: { totalOrder: string } } | null;
  problems: { field: string; value: string | null; reason: string; message: string }[];
}

/** Adds entries to a user's cart as an API account; the new lines' ids. */
async function add(cloginId: number, productList: Record<string, unknown>[]): Promise<number[]> {
  const answer = await graphql<{ addProduct: { cartIds: number[]; problems: unknown[] } }>(t.app, ADD, {
    input: { groupId: MAPLE.groupId, cloginId, productList },
  });
  expect(answer.errors).toBeUndefined();
  expect(answer.data!.addProduct.problems).toEqual([]);
  return answer.data!.addProduct.cartIds;
}

const projectOrder = async () =>
  (
    await graphql<{ project: { groupTotals: { totalOrder: string } } }>(
      t.app,
      `{ project(groupId: ${MAPLE.groupId}) { groupTotals { totalOrder } } }`,
    )
  ).data!.project.groupTotals.totalOrder;

const removedEvents = async () =>
  (await t.dataSource.query(`SELECT data FROM event WHERE type = 'cart.product_removed' ORDER BY id`)).map(
    (row: { data: string }) => JSON.parse(row.data) as Record<string, unknown>,
  );

it("an API account removes a line: gone from the cart, the order total and the project's totals drop by its amount, one cart.product_removed event", async () => {
  const [lineId] = await add(MAPLE.bill, [{ productId: 78, quantity: 2 }]); // T-shirts, 2 × 15.50
  const before = await projectOrder();
  const removed = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, cartLineId: lineId },
  });
  expect(removed.errors).toBeUndefined();
  const payload = removed.data!.removeCartLine;
  expect(payload.problems).toEqual([]);
  expect(payload.removedCartLineId).toBe(lineId);
  expect(payload.user!.cartLines.map((line) => line.cartLineId)).not.toContain(lineId);
  expect(Number(await projectOrder())).toBeCloseTo(Number(before) - 31, 2);
  expect(await removedEvents()).toContainEqual({ clogin_id: MAPLE.bill, cart_id: lineId, p_id: 78, q: 2 });
  const again = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, cartLineId: lineId },
  });
  expect(again.data!.removeCartLine).toMatchObject({
    removedCartLineId: null,
    user: null,
    problems: [{ field: "input.cartLineId", reason: "NOT_AVAILABLE", value: String(lineId) }],
  });
});

it("a line of another user's cart is not in this cart: NOT_AVAILABLE, nothing removed", async () => {
  const [billsLine] = await add(MAPLE.bill, [{ productId: 78, quantity: 1 }]);
  const refused = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.miles, cartLineId: billsLine },
  });
  expect(refused.data!.removeCartLine.problems).toMatchObject([{ reason: "NOT_AVAILABLE" }]);
  const kept = await t.dataSource.query(`SELECT id FROM cart_line WHERE id = ?`, [billsLine]);
  expect(kept).toHaveLength(1);
});

it("the registrant removes a line of a product it may add; not a private product staff made for its cart, nor another cart's line", async () => {
  const token = await sessionOf(MAPLE.bill);
  const [own] = await add(MAPLE.bill, [{ productId: 78, quantity: 1 }]);
  const [privateLine] = await add(MAPLE.bill, [{ name: "Late fee", price: "10.00", quantity: 1 }]);
  const [milesLine] = await add(MAPLE.miles, [{ productId: 78, quantity: 1 }]);

  const removed = await asSession(token, REMOVE_MINE, { input: { cartLineId: own } });
  expect(removed.body.errors).toBeUndefined();
  expect(removed.body.data.removeMyCartLine.removedCartLineId).toBe(own);
  expect(removed.body.data.removeMyCartLine.problems).toEqual([]);

  const privateRefused = await asSession(token, REMOVE_MINE, { input: { cartLineId: privateLine } });
  expect(privateRefused.body.data.removeMyCartLine).toMatchObject({
    removedCartLineId: null,
    problems: [{ field: "input.cartLineId", reason: "NOT_ALLOWED" }],
  });
  expect(privateRefused.body.data.removeMyCartLine.problems[0].message).toMatch(/only staff may remove it/);
  const foreign = await asSession(token, REMOVE_MINE, { input: { cartLineId: milesLine } });
  expect(foreign.body.data.removeMyCartLine.problems).toMatchObject([{ reason: "NOT_AVAILABLE" }]);

  // The API account removes the private line the registrant may not.
  const byStaff = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, cartLineId: privateLine },
  });
  expect(byStaff.data!.removeCartLine.removedCartLineId).toBe(privateLine);
  // removeCartLine is for API accounts: FORBIDDEN to a session, as addProduct is.
  const forbidden = await asSession(token, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, cartLineId: milesLine },
  });
  expect(forbidden.body.errors[0].extensions.code).toBe("FORBIDDEN");
});

it("a product locked once funds are allocated stays in a cart with payments (Miles), for staff and registrant; without payments (Bill) it goes", async () => {
  const created = await graphql<{ createProduct: { productId: number } }>(
    t.app,
    `
      mutation ($input: CreateProductInput!) {
        createProduct(input: $input) {
          productId
          problems {
            message
          }
        }
      }
    `,
    {
      input: {
        groupId: MAPLE.groupId,
        baseProductType: 7,
        productName: "Locked kit",
        productPrice: "40.00",
        categoryId: 14,
        lockOnceFundsAllocated: true,
      },
    },
  );
  const productId = created.data!.createProduct.productId;
  const [milesLine] = await add(MAPLE.miles, [{ productId, quantity: 1 }]);
  const [billsLine] = await add(MAPLE.bill, [{ productId, quantity: 1 }]);

  const staff = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.miles, cartLineId: milesLine },
  });
  expect(staff.data!.removeCartLine.problems).toMatchObject([{ reason: "NOT_ALLOWED" }]);
  expect(staff.data!.removeCartLine.problems[0].message).toMatch(/locked once funds are allocated/);
  const own = await asSession(await sessionOf(MAPLE.miles), REMOVE_MINE, { input: { cartLineId: milesLine } });
  expect(own.body.data.removeMyCartLine.problems).toMatchObject([{ reason: "NOT_ALLOWED" }]);

  const unpaid = await graphql<{ removeCartLine: Payload }>(t.app, REMOVE, {
    input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, cartLineId: billsLine },
  });
  expect(unpaid.data!.removeCartLine.removedCartLineId).toBe(billsLine);
});
