import { OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { fixtureWith, LAB, LAB_FAMILY_PROJECT, LAB_PROJECT } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { STATEMENT_COUNTING } from "../support/test-config";

// users get_info (contract §11): every selector, answers keyed as sent, notices for what cannot
// be read, and a fixed number of statements whatever the number of fields, forms, children, cart
// lines or payments (two family projects of the same shape: 1 and 50 of each).

const SHAPES = [
  { n: 1, groupId: 100909301, firstForm: 9310, firstProduct: 9320, parent: 7500001, firstChild: 7500101 },
  { n: 50, groupId: 100909302, firstForm: 9410, firstProduct: 9510, parent: 7600001, firstChild: 7600101 },
] as const;
type Shape = (typeof SHAPES)[number];

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function shapedProject(shape: Shape) {
  const formIds = range(shape.n).map((i) => shape.firstForm + i);
  const productIds = range(shape.n).map((i) => shape.firstProduct + i);
  const extra = shape.firstProduct + 60;
  return {
    id: shape.groupId,
    name: `Info ×${shape.n}`,
    familySystem: true,
    categories: [{ id: shape.firstProduct + 90, name: "Fees" }],
    products: [
      ...productIds.map((id) => ({ id, name: `Product ${id}`, price: "3.50", categoryId: shape.firstProduct + 90 })),
      { id: extra, name: "Private", price: "1.00", private: true },
      { id: extra + 1, name: "Ended", price: "1.00", endDate: "2020-01-01 00:00:00" },
      { id: extra + 2, name: "Kids only", price: "2.00", level: "child", onlyOne: true },
    ],
    forms: [
      ...formIds.map((id) => ({
        id,
        name: `Form ${id}`,
        mandatory: true,
        level: "all",
        fields: [
          {
            id: `f_${id}_1`,
            label: `Name ${id}`,
            type: "text",
            mandatory: true,
            ...(id === formIds[0] ? { name: `nick_${shape.n}` } : {}),
          },
          { id: `f_${id}_2`, label: `Pick ${id}`, type: "multiple_choice", options: ["One", "Two"] },
        ],
      })),
      {
        id: shape.firstForm + 80,
        name: "Office",
        audience: "admin",
        fields: [{ id: `f_${shape.firstForm + 80}_1`, label: "Notes", type: "text", mandatory: true }],
      },
      {
        id: shape.firstForm + 81,
        name: "Later",
        initial: false,
        fields: [{ id: `f_${shape.firstForm + 81}_1`, label: "Later", type: "text" }],
      },
    ],
    users: [
      {
        cloginId: shape.parent,
        username: `parent${shape.n}@info.test`,
        firstName: "Pat",
        applicationDate: "2026-07-01 09:00:00",
        values: { [`f_${formIds[0]}_1`]: "Patty", [`f_${formIds[0]}_2`]: ["Two"] },
        completedForms: [formIds[0]],
        cart: productIds.map((productId) => ({ productId, quantity: 2, remark: `for ${productId}` })),
        payments: range(shape.n).map((i) => ({
          amount: "1.25",
          date: "2026-07-02 10:00:00",
          method: "card",
          note: `p${i}`,
        })),
        utm: { campaign: "spring", source: "newsletter" },
      },
      ...range(shape.n).map((i) => ({
        cloginId: shape.firstChild + i,
        username: `child${shape.n}-${i}@info.test`,
        firstName: `Kid${i}`,
        connectedTo: shape.parent,
        applicationDate: "2026-07-01 10:00:00",
      })),
    ],
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    fixture: fixtureWith([LAB_PROJECT, LAB_FAMILY_PROJECT, ...SHAPES.map(shapedProject)]),
    config: STATEMENT_COUNTING,
  });
});
afterAll(() => t.close());

const info = (groupId: number, cloginId: number, doc?: unknown) =>
  postRest(t.app, "users", {
    action: "get_info",
    group_id: groupId,
    clogin_id: cloginId,
    ...(doc === undefined ? {} : { doc }),
  });

const SMALL = SHAPES[0];

describe("get_info: the answer", () => {
  it("without doc (absent, {} or []): msg, user_info and meta_info only", async () => {
    for (const doc of [undefined, {}, []]) {
      const res = await info(LAB.groupId, LAB.cy, doc);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, msg: "User info.", user_info: { clogin_id: String(LAB.cy) } });
      expect(res.body.meta_info.u_name).toBe("Cy");
      expect(res.body.doc).toBeUndefined();
      expect(res.body.notices).toBeUndefined();
    }
  });

  it("fields by identifier and by mapped name, keyed as sent; choice fields as arrays; empty is null", async () => {
    const res = await info(LAB.groupId, LAB.cy, { f_501_1: true, first_name: true, f_501_8: true, f_501_3: true });
    expect(res.body.doc).toEqual({ f_501_1: "Cy", first_name: "Cy", f_501_8: ["Swimming"], f_501_3: null });
    expect(Object.keys(res.body.doc)).toEqual(["f_501_1", "first_name", "f_501_8", "f_501_3"]);
  });

  it("a field the user's forms do not hold and an unknown key: not in doc, a notice each", async () => {
    const res = await info(LAB.groupId, LAB.ann, { f_502_1: true, nope: true, _nothing: true, f_501_1: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.doc)).toEqual(["f_501_1"]);
    expect(res.body.notices).toEqual([
      expect.stringMatching(/^_nothing: unknown selector/),
      expect.stringMatching(/^f_502_1: not read; its form is not in the user's form set/),
      expect.stringMatching(/^nope: not read; no field/),
    ]);
  });

  it("a missing user is 404, a foreign project 403, a missing clogin_id 400", async () => {
    expect((await info(LAB.groupId, 999999, {})).body.error_code).toBe("USER_NOT_FOUND");
    expect((await info(OTHER.groupId, LAB.ann, {})).status).toBe(403);
    const res = await postRest(t.app, "users", { action: "get_info", group_id: LAB.groupId, doc: {} });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "clogin_id", message: "is required" }]);
  });
});

describe("get_info: system selectors", () => {
  it("_allfields: every field's value, the field_index and the empty mandatory registrant fields", async () => {
    const res = await info(SMALL.groupId, SMALL.parent, { _allfields: true });
    const form = SMALL.firstForm;
    const office = SMALL.firstForm + 80;
    expect(res.body.doc._allfields.fields).toEqual({
      [`f_${form}_1`]: "Patty",
      [`f_${form}_2`]: ["Two"],
      [`f_${office}_1`]: null,
    });
    expect(res.body.doc._allfields.field_index).toEqual([
      {
        field_id: `f_${form}_1`,
        name: "nick_1",
        label: `Name ${form}`,
        type: "text",
        form_id: String(form),
        mandatory: "1",
      },
      {
        field_id: `f_${form}_2`,
        name: null,
        label: `Pick ${form}`,
        type: "multiple_choice",
        form_id: String(form),
        mandatory: "0",
        options: ["One", "Two"],
      },
      { field_id: `f_${office}_1`, name: null, label: "Notes", type: "text", form_id: String(office), mandatory: "1" },
    ]);
    // The admin-only form's empty mandatory field is not the registrant's error.
    expect(res.body.doc._allfields.errors).toEqual([]);
    const child = await info(SMALL.groupId, SMALL.firstChild, { _allfields: true });
    expect(child.body.doc._allfields.errors).toEqual([
      { form_id: String(form), field_id: `f_${form}_1`, label: `Name ${form}`, message: `Name ${form} is required.` },
    ]);
  });

  it("_userforms: the form set in form order with completion", async () => {
    const res = await info(SMALL.groupId, SMALL.parent, { _userforms: true });
    expect(res.body.doc._userforms).toEqual([
      {
        form_id: String(SMALL.firstForm),
        form_name: `Form ${SMALL.firstForm}`,
        mandatory: "1",
        audience: "user",
        completed: "1",
        completed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      },
      {
        form_id: String(SMALL.firstForm + 80),
        form_name: "Office",
        mandatory: "0",
        audience: "admin",
        completed: "0",
        completed_at: null,
      },
    ]);
  });

  it("_family: the parent itself and its children; for a child, its parent and its siblings with itself; an individual: itself and []", async () => {
    const parent = await info(SMALL.groupId, SMALL.parent, { _family: true });
    expect(parent.body.doc._family.parent.user_info.clogin_id).toBe(String(SMALL.parent));
    expect(
      parent.body.doc._family.children.map((c: { user_info: { clogin_id: string } }) => c.user_info.clogin_id),
    ).toEqual([String(SMALL.firstChild)]);
    expect(parent.body.doc._family.children[0].meta_info.connected_to).toBe(String(SMALL.parent));
    const child = await info(SMALL.groupId, SMALL.firstChild, { _family: true });
    expect(child.body.doc._family).toEqual(parent.body.doc._family);
    const individual = await info(LAB.groupId, LAB.ann, { _family: true });
    expect(individual.body.doc._family.parent.user_info.clogin_id).toBe(String(LAB.ann));
    expect(individual.body.doc._family.children).toEqual([]);
  });

  it("_userproducts: non-private products of the user's level available now, cart_id when in the cart", async () => {
    const res = await info(SMALL.groupId, SMALL.parent, { _userproducts: true });
    expect(res.body.doc._userproducts).toEqual([
      {
        p_id: String(SMALL.firstProduct),
        product_name: `Product ${SMALL.firstProduct}`,
        product_price: "3.50",
        base_product_type: "7",
        product_type: "0",
        cat_id: String(SMALL.firstProduct + 90),
        only_one: "0",
        cart_id: expect.stringMatching(/^\d+$/),
      },
    ]);
    const child = await info(SMALL.groupId, SMALL.firstChild, { _userproducts: true });
    expect(child.body.doc._userproducts.map((p: { product_name: string }) => p.product_name)).toEqual([
      `Product ${SMALL.firstProduct}`,
      "Kids only",
    ]);
    expect(child.body.doc._userproducts[1]).toMatchObject({ product_type: "2", only_one: "1", cat_id: null });
    expect(child.body.doc._userproducts[0].cart_id).toBeUndefined();
  });

  it("_usercart as true or as options (unknown options get a notice), _userpayments and _utm", async () => {
    const res = await info(SMALL.groupId, SMALL.parent, { _usercart: { sort: "desc" }, _userpayments: true, _utm: 1 });
    expect(res.body.doc._usercart).toEqual([
      {
        cart_id: expect.stringMatching(/^\d+$/),
        p_id: String(SMALL.firstProduct),
        product_name: `Product ${SMALL.firstProduct}`,
        quantity: "2",
        unit_price: "3.50",
        amount: "7.00",
        product_remark: `for ${SMALL.firstProduct}`,
        recurring_start_date: null,
        added_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      },
    ]);
    expect(res.body.notices).toEqual([expect.stringMatching(/^_usercart\.sort: unknown option/)]);
    expect(res.body.doc._userpayments).toEqual([
      {
        payment_id: expect.stringMatching(/^\d+$/),
        amount: "1.25",
        paid_at: "2026-07-02 10:00:00",
        method: "card",
        note: "p0",
      },
    ]);
    expect(res.body.doc._utm).toEqual({
      campaign: "spring",
      content: null,
      id: null,
      medium: null,
      source: "newsletter",
      term: null,
    });
  });
});

const EVERYTHING = {
  _allfields: true,
  _userforms: true,
  _family: true,
  _userproducts: true,
  _usercart: true,
  _userpayments: true,
  _utm: true,
};

describe("get_info: a fixed number of statements", () => {
  it("every selector at once: the same count with 1 and with 50 forms, fields, children, cart lines and payments", async () => {
    const counts: number[] = [];
    for (const shape of SHAPES) {
      const doc = { ...EVERYTHING, [`f_${shape.firstForm}_1`]: true, [`nick_${shape.n}`]: true };
      const { statements, result } = await t.countStatements(() => info(shape.groupId, shape.parent, doc));
      expect(result.status).toBe(200);
      expect(result.body.doc._family.children).toHaveLength(shape.n);
      expect(result.body.doc._usercart).toHaveLength(shape.n);
      expect(result.body.doc._userpayments).toHaveLength(shape.n);
      expect(result.body.doc._userforms).toHaveLength(shape.n + 1);
      expect(Object.keys(result.body.doc._allfields.fields)).toHaveLength(shape.n * 2 + 1);
      counts.push(statements);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});

describe("get_user_list answers get_info selectors per record", () => {
  it("each record, children included, carries a nested doc; statements are the same for 1 and 50 children", async () => {
    const counts: number[] = [];
    for (const shape of SHAPES) {
      const { statements, result } = await t.countStatements(() =>
        postRest(t.app, "users", {
          action: "get_user_list",
          group_id: shape.groupId,
          doc: { ...EVERYTHING, nick_1: true },
        }),
      );
      expect(result.status).toBe(200);
      expect(result.body.users).toHaveLength(1);
      expect(result.body.children).toHaveLength(shape.n);
      expect(Object.keys(result.body.users[0].doc)).toEqual([
        ...Object.keys(EVERYTHING),
        ...(shape.n === 1 ? ["nick_1"] : []),
      ]);
      expect(result.body.children[0].doc._family.parent.user_info.clogin_id).toBe(String(shape.parent));
      counts.push(statements);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});
