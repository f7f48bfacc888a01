import { graphqlData } from "../graphql/graphql-client";
import { MAPLE } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Parity of the read path: get_info / get_user_list (REST) and user / users (GraphQL) answer the
// same data for the same filters (contract §11, §12). The demo project has a family, an excluded
// status, cart lines, payments and UTM data.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Rec = {
  user_info: { clogin_id: string };
  meta_info: Record<string, string | null>;
  children?: Rec[];
  doc?: Record<string, unknown>;
};
const ids = (records: Rec[]) => records.map((record) => Number(record.user_info.clogin_id));

async function restList(doc: Record<string, unknown>) {
  const res = await postRest(t.app, "users", { action: "get_user_list", group_id: MAPLE.groupId, doc });
  expect(res.status).toBe(200);
  return res.body as { users: Rec[]; children: Rec[]; total_users: number };
}

async function graphqlIds(filter: string): Promise<{ ids: number[]; total: number }> {
  const data = await graphqlData<{ users: { totalCount: number; edges: { node: { cloginId: number } }[] } }>(
    t.app,
    `{ users(groupId: ${MAPLE.groupId}, first: 100, filter: ${filter}) { totalCount edges { node { cloginId } } } }`,
  );
  return { ids: data.users.edges.map((edge) => edge.node.cloginId), total: data.users.totalCount };
}

describe("get_user_list and users list the same registrations for the same filter", () => {
  it.each([
    ["default (excluded left out), parents", {}, "{ level: PARENT, excluded: false }"],
    ["with_excluded, parents", { with_excluded: true }, "{ level: PARENT }"],
    ["only_excluded, parents", { only_excluded: true }, "{ level: PARENT, excluded: true }"],
  ])("%s", async (_name, doc, filter) => {
    const rest = await restList({ ...doc, only_parents: true });
    const graph = await graphqlIds(filter);
    expect(ids(rest.users)).toEqual(graph.ids);
    expect(rest.total_users).toBe(graph.total);
  });

  it("only_children (with_excluded) and users(level: CHILD)", async () => {
    const rest = await restList({ only_children: true, with_excluded: true });
    const graph = await graphqlIds("{ level: CHILD }");
    expect(ids(rest.children)).toEqual(graph.ids);
    expect(graph.ids.length).toBeGreaterThan(0);
  });

  it("return_families (with_excluded) nests the same children as User.children", async () => {
    const rest = await restList({ with_excluded: true, return_families: true });
    const data = await graphqlData<{
      users: { edges: { node: { cloginId: number; children: { cloginId: number }[] } }[] };
    }>(
      t.app,
      `{ users(groupId: ${MAPLE.groupId}, first: 100, filter: { level: PARENT }) { edges { node { cloginId children { cloginId } } } } }`,
    );
    const graphFamilies = data.users.edges.map((edge) => [
      edge.node.cloginId,
      edge.node.children.map((c) => c.cloginId),
    ]);
    const restFamilies = rest.users.map((record) => [Number(record.user_info.clogin_id), ids(record.children ?? [])]);
    expect(restFamilies).toEqual(graphFamilies);
  });
});

describe("get_info and user read the same details", () => {
  it("cart, payments, UTM and forms of every demo user", async () => {
    const list = await restList({ with_excluded: true });
    const everyone = [...ids(list.users), ...ids(list.children)];
    expect(everyone.length).toBeGreaterThan(1);
    const seen = { cartLines: 0, payments: 0, utm: 0 };
    for (const cloginId of everyone) {
      const rest = await postRest(t.app, "users", {
        action: "get_info",
        group_id: MAPLE.groupId,
        clogin_id: cloginId,
        doc: { _usercart: true, _userpayments: true, _utm: true, _userforms: true },
      });
      const data = await graphqlData<{
        user: {
          cartLines: {
            cartLineId: number;
            productId: number;
            quantity: number;
            unitPrice: string;
            amount: string;
            remark: string | null;
          }[];
          payments: { paymentId: number; amount: string; method: string | null; note: string | null }[];
          utm: Record<string, string | null>;
          forms: { completed: boolean; form: { formId: number; name: string } }[];
          metaInfo: { totalOrder: string; totalPaid: string };
        };
      }>(
        t.app,
        `{ user(groupId: ${MAPLE.groupId}, cloginId: ${cloginId}) {
            cartLines { cartLineId productId quantity unitPrice amount remark }
            payments { paymentId amount method note }
            utm { campaign content utmId medium source term }
            forms { completed form { formId name } }
            metaInfo { totalOrder totalPaid } } }`,
      );
      const doc = rest.body.doc;
      seen.cartLines += data.user.cartLines.length;
      seen.payments += data.user.payments.length;
      seen.utm += Object.values(data.user.utm).some((value) => value !== null) ? 1 : 0;
      expect(
        doc._usercart.map((line: Record<string, string | null>) => [
          Number(line.cart_id),
          Number(line.p_id),
          Number(line.quantity),
          line.unit_price,
          line.amount,
          line.product_remark,
        ]),
      ).toEqual(
        data.user.cartLines.map((l) => [l.cartLineId, l.productId, l.quantity, l.unitPrice, l.amount, l.remark]),
      );
      expect(
        doc._userpayments.map((p: Record<string, string | null>) => [Number(p.payment_id), p.amount, p.method, p.note]),
      ).toEqual(data.user.payments.map((p) => [p.paymentId, p.amount, p.method, p.note]));
      // The legacy _utm calls the attribution's own id `id`; in GraphQL that is utmId (id is the Node id).
      const { utmId, ...utm } = data.user.utm;
      expect(doc._utm).toEqual({ ...utm, id: utmId });
      expect(
        doc._userforms.map((f: Record<string, string>) => [Number(f.form_id), f.form_name, f.completed === "1"]),
      ).toEqual(data.user.forms.map((f) => [f.form.formId, f.form.name, f.completed]));
      expect([rest.body.meta_info.total_order, rest.body.meta_info.total_paid]).toEqual([
        data.user.metaInfo.totalOrder,
        data.user.metaInfo.totalPaid,
      ]);
    }
    // The comparison covered real data, not only empty lists.
    expect(seen.cartLines).toBeGreaterThan(0);
    expect(seen.payments).toBeGreaterThan(0);
    expect(seen.utm).toBeGreaterThan(0);
  });
});
