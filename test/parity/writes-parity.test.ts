import request from "supertest";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../graphql/graphql-client";
import { startTestApp, type TestApp } from "../support/test-app";
import { afterPath, graphqlFailure, parityFixture, restFailure, tableCounts, TWINS, PROBLEMS } from "./parity-support";

// Issue 8: create_child, set_status, add_product and the products endpoint through REST and
// GraphQL write the same rows, and fail with the same code, the same problem messages at the same
// member (each transport renders the path in its own names) and the same top-level message.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: parityFixture() });
});
afterAll(() => t.close());

const g = MAPLE.groupId;
const post = async (endpoint: "users" | "products", body: Record<string, unknown>) => {
  const res = await request(t.app).post(`/reg/api2/${endpoint}/`).set(mapleHeaders).send(body);
  return res.body as Record<string, unknown>;
};

const CREATE_CHILD = `mutation($input: CreateChildInput!) { createChild(input: $input) { user { cloginId } notices ${PROBLEMS} } }`;
const SET_STATUS = `mutation($input: SetStatusInput!) { setStatus(input: $input) { user { cloginId } notices ${PROBLEMS} } }`;
const ADD_PRODUCT = `mutation($input: AddProductInput!) { addProduct(input: $input) { cartIds notices ${PROBLEMS} } }`;
const CREATE_PRODUCT = `mutation($input: CreateProductInput!) { createProduct(input: $input) { productId ${PROBLEMS} } }`;
const CREATE_CATEGORY = `mutation($input: CreateCategoryInput!) { createCategory(input: $input) { categoryId ${PROBLEMS} } }`;

type Row = Record<string, unknown>;
const query = (sql: string, params: unknown[]) => t.dataSource.query(sql, params) as Promise<Row[]>;
const normalize = (rows: Row[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v == null ? null : String(v)])));

async function childRows(cloginId: number) {
  const [registration] = await query(
    `SELECT connected_to, status_id, application_date FROM registration WHERE project_id = ? AND person_id = ?`,
    [g, cloginId],
  );
  const [person] = await query(`SELECT username, main_email, first_name, last_name FROM person WHERE id = ?`, [
    cloginId,
  ]);
  const forms = await query(
    `SELECT rf.form_id, rf.completed FROM registration_form rf JOIN registration r ON r.uid = rf.registration_id
      WHERE r.project_id = ? AND r.person_id = ? ORDER BY rf.form_id`,
    [g, cloginId],
  );
  return normalize([{ ...registration, ...person }, ...forms]);
}

async function cartRows(cloginId: number) {
  return normalize(
    await query(
      `SELECT c.product_id, c.quantity, c.unit_price_cents, c.remark, c.recurring_start_date FROM cart_line c
         JOIN registration r ON r.uid = c.registration_id WHERE r.project_id = ? AND r.person_id = ? ORDER BY c.id`,
      [g, cloginId],
    ),
  );
}

describe("same rows through REST and GraphQL", () => {
  it("create child", async () => {
    const viaRest = await post("users", {
      action: "create_child",
      group_id: g,
      connected_to: TWINS.update.rest,
      doc: { first_name: "Kit", last_name: "Twin", _application_date: "2026-05-01 10:00:00" },
    });
    const viaGraphql = await graphqlData<{ createChild: { user: { cloginId: string }; notices: string[] } }>(
      t.app,
      CREATE_CHILD,
      {
        input: {
          groupId: g,
          connectedTo: TWINS.update.graphql,
          firstName: "Kit",
          lastName: "Twin",
          applicationDate: "2026-05-01 10:00:00",
        },
      },
    );
    const restChild = Number((viaRest.user_info as Row).clogin_id);
    const graphqlChild = Number(viaGraphql.createChild.user.cloginId);
    const [a, b] = [await childRows(restChild), await childRows(graphqlChild)];
    expect(a[0].connected_to).toBe(String(TWINS.update.rest));
    expect(b[0].connected_to).toBe(String(TWINS.update.graphql));
    const withoutParent = (rows: Row[]) => rows.map((row) => ({ ...row, connected_to: "parent" }));
    expect(withoutParent(a)).toEqual(withoutParent(b));
    const withoutIds = (notices: string[]) => notices.map((notice) => notice.replace(/user \d+/, "user <id>"));
    expect(withoutIds(viaGraphql.createChild.notices)).toEqual(withoutIds((viaRest.notices as string[]) ?? []));
  });

  it("set status", async () => {
    await post("users", { action: "set_status", group_id: g, clogin_id: TWINS.mark.rest, status_id: 10 });
    await graphqlData(t.app, SET_STATUS, { input: { groupId: g, cloginId: TWINS.mark.graphql, statusId: 10 } });
    const statusOf = async (cloginId: number) =>
      (await query(`SELECT status_id FROM registration WHERE project_id = ? AND person_id = ?`, [g, cloginId]))[0]
        .status_id;
    expect(Number(await statusOf(TWINS.mark.rest))).toBe(10);
    expect(Number(await statusOf(TWINS.mark.graphql))).toBe(10);
  });

  it("add product", async () => {
    const entries = [
      { p_id: 78, q: 2, product_remark: "M" },
      { p_id: 713, q: 1, recurring_start_date: "2026-09-01", date_structure: "yyyy-mm-dd" },
      { name: "Late pickup", price: "7.50", q: 1 },
    ];
    const viaRest = await post("users", {
      action: "add_product",
      group_id: g,
      clogin_id: TWINS.email.rest,
      product_list: entries,
    });
    const viaGraphql = await graphqlData<{ addProduct: { cartIds: string[]; notices: string[] } }>(t.app, ADD_PRODUCT, {
      input: {
        groupId: g,
        cloginId: TWINS.email.graphql,
        productList: [
          { pId: 78, q: 2, productRemark: "M" },
          { pId: 713, q: 1, recurringStartDate: "2026-09-01", dateStructure: "yyyy-mm-dd" },
          { name: "Late pickup", price: "7.50", q: 1 },
        ],
      },
    });
    expect(viaGraphql.addProduct.cartIds).toHaveLength((viaRest.cart_ids as string[]).length);
    expect(viaGraphql.addProduct.notices).toEqual(viaRest.notices);
    // The private product is a row of its own per cart: compare all but its id.
    const withoutPrivateId = (rows: Row[]) => rows.map((row, i) => (i === 2 ? { ...row, product_id: "private" } : row));
    expect(withoutPrivateId(await cartRows(TWINS.email.graphql))).toEqual(
      withoutPrivateId(await cartRows(TWINS.email.rest)),
    );
  });

  it("create category and product", async () => {
    const restCategory = await post("products", {
      action: "create_category",
      group_id: g,
      doc: { category_name: "Parity R", category_quota_ordered: 3, interchange_category: true },
    });
    const graphqlCategory = await graphqlData<{ createCategory: { categoryId: number } }>(t.app, CREATE_CATEGORY, {
      input: { groupId: g, categoryName: "Parity G", categoryQuotaOrdered: 3, interchangeCategory: true },
    });
    const categoryRow = async (id: number) =>
      normalize(
        await query(`SELECT quota_ordered, interchange, mandatory, top_remark FROM product_category WHERE id = ?`, [
          id,
        ]),
      );
    expect(await categoryRow(graphqlCategory.createCategory.categoryId)).toEqual(
      await categoryRow(Number(restCategory.cat_id)),
    );

    const restProduct = await post("products", {
      action: "create",
      group_id: g,
      doc: {
        base_product_type: 1,
        product_name: "Parity week",
        product_price: "99.90",
        cat_id: restCategory.cat_id,
        product_type: 1,
        product_start_date: "2026-01-01",
        product_end_date: "2027-01-01",
        only_one: true,
        internalid: "PW",
      },
    });
    const graphqlProduct = await graphqlData<{ createProduct: { productId: number } }>(t.app, CREATE_PRODUCT, {
      input: {
        groupId: g,
        baseProductType: 1,
        productName: "Parity week",
        productPrice: "99.90",
        catId: graphqlCategory.createCategory.categoryId,
        productType: 1,
        productStartDate: "2026-01-01",
        productEndDate: "2027-01-01",
        onlyOne: true,
        internalId: "PW",
      },
    });
    const productRow = async (id: number) =>
      normalize(
        await query(
          `SELECT name, price_cents, base_type, level, available_from, available_until, only_one, internal_id, is_private
             FROM product WHERE id = ?`,
          [id],
        ),
      );
    expect(await productRow(graphqlProduct.createProduct.productId)).toEqual(
      await productRow(Number(restProduct.p_id)),
    );
  });
});

interface FailureCase {
  name: string;
  expected: string;
  rest: { endpoint: "users" | "products"; body: Record<string, unknown> };
  graphql: { query: string; variables: Record<string, unknown> };
  problems: { rest: string; graphql: string }[];
}

const failures: FailureCase[] = [
  {
    name: "create child: a parent that is a child",
    expected: "BAD_USER_INPUT",
    rest: { endpoint: "users", body: { action: "create_child", group_id: g, connected_to: MAPLE.childKind, doc: {} } },
    graphql: { query: CREATE_CHILD, variables: { input: { groupId: g, connectedTo: MAPLE.childKind } } },
    problems: [{ rest: "connected_to", graphql: "input.connectedTo" }],
  },
  {
    name: "create child: a bad application date",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "create_child", group_id: g, connected_to: MAPLE.miles, doc: { _application_date: "soon" } },
    },
    graphql: {
      query: CREATE_CHILD,
      variables: { input: { groupId: g, connectedTo: MAPLE.miles, applicationDate: "soon" } },
    },
    problems: [{ rest: "doc._application_date", graphql: "input.applicationDate" }],
  },
  {
    name: "create child: a project without families",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "create_child", group_id: MAPLE.jazzGroupId, connected_to: MAPLE.miles, doc: {} },
    },
    graphql: { query: CREATE_CHILD, variables: { input: { groupId: MAPLE.jazzGroupId, connectedTo: MAPLE.miles } } },
    problems: [{ rest: "group_id", graphql: "input.groupId" }],
  },
  {
    name: "set status: a status of another project",
    expected: "BAD_USER_INPUT",
    rest: { endpoint: "users", body: { action: "set_status", group_id: g, clogin_id: MAPLE.miles, status_id: 90 } },
    graphql: { query: SET_STATUS, variables: { input: { groupId: g, cloginId: MAPLE.miles, statusId: 90 } } },
    problems: [{ rest: "status_id", graphql: "input.statusId" }],
  },
  {
    name: "set status: a user not in the project",
    expected: "USER_NOT_FOUND",
    rest: { endpoint: "users", body: { action: "set_status", group_id: g, clogin_id: 999999, status_id: 9 } },
    graphql: { query: SET_STATUS, variables: { input: { groupId: g, cloginId: 999999, statusId: 9 } } },
    problems: [],
  },
  {
    name: "add product: a product of another level, a bad quantity, a date on merchandise",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: {
        action: "add_product",
        group_id: g,
        clogin_id: MAPLE.miles,
        product_list: [
          { p_id: 714, q: 1 },
          { p_id: 78, q: 1000 },
        ],
      },
    },
    graphql: {
      query: ADD_PRODUCT,
      variables: {
        input: {
          groupId: g,
          cloginId: MAPLE.miles,
          productList: [
            { pId: 714, q: 1 },
            { pId: 78, q: 1000 },
          ],
        },
      },
    },
    problems: [{ rest: "product_list[1].q", graphql: "input.productList[1].q" }],
  },
  {
    name: "add product: a product this user may not add",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "add_product", group_id: g, clogin_id: MAPLE.miles, product_list: [{ p_id: 714, q: 1 }] },
    },
    graphql: {
      query: ADD_PRODUCT,
      variables: { input: { groupId: g, cloginId: MAPLE.miles, productList: [{ pId: 714, q: 1 }] } },
    },
    problems: [{ rest: "product_list[0].p_id", graphql: "input.productList[0].pId" }],
  },
  {
    name: "create product: a system type, an empty name, a price with 3 decimals, a category of nowhere",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "products",
      body: {
        action: "create",
        group_id: g,
        doc: { base_product_type: 5, product_name: " ", product_price: "1.005", cat_id: 999 },
      },
    },
    graphql: {
      query: CREATE_PRODUCT,
      variables: { input: { groupId: g, baseProductType: 5, productName: " ", productPrice: "1.005", catId: 999 } },
    },
    problems: [
      { rest: "doc.base_product_type", graphql: "input.baseProductType" },
      { rest: "doc.product_name", graphql: "input.productName" },
      { rest: "doc.product_price", graphql: "input.productPrice" },
      { rest: "doc.cat_id", graphql: "input.catId" },
    ],
  },
  {
    name: "create category: a quota of 0",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "products",
      body: { action: "create_category", group_id: g, doc: { category_name: "Q", category_quota_ordered: 0 } },
    },
    graphql: {
      query: CREATE_CATEGORY,
      variables: { input: { groupId: g, categoryName: "Q", categoryQuotaOrdered: 0 } },
    },
    problems: [{ rest: "doc.category_quota_ordered", graphql: "input.categoryQuotaOrdered" }],
  },
];

describe("same failure through REST and GraphQL", () => {
  let before: Record<string, number>;
  beforeAll(async () => {
    before = await tableCounts(t.dataSource);
  });

  it.each(failures.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const restSide = restFailure(await post(c.rest.endpoint, c.rest.body));
    const graphqlSide = await graphqlFailure(t.app, c.graphql.query, c.graphql.variables);
    expect([restSide.code, graphqlSide.code]).toEqual([c.expected, c.expected]);
    expect(restSide.problems.map((p) => p.path)).toEqual(c.problems.map((p) => p.rest));
    expect(graphqlSide.problems.map((p) => p.path)).toEqual(c.problems.map((p) => p.graphql));
    expect(graphqlSide.problems.map((p) => p.message)).toEqual(restSide.problems.map((p) => p.message));
    if (c.problems.length > 0)
      expect(afterPath(graphqlSide.message, c.problems[0].graphql)).toBe(
        afterPath(restSide.message, c.problems[0].rest),
      );
    else expect(graphqlSide.message).toBe(restSide.message);
  });

  it("and neither interface wrote anything for any of them", async () => {
    expect(await tableCounts(t.dataSource)).toEqual(before);
  });

  it("CONFLICT on a category name carries the existing id on both (cat_id ↔ catId)", async () => {
    const viaRest = await post("products", {
      action: "create_category",
      group_id: g,
      doc: { category_name: "camp WEEKS" },
    });
    const viaGraphql = await graphql(t.app, CREATE_CATEGORY, { input: { groupId: g, categoryName: "camp WEEKS" } });
    expect(viaRest.cat_id).toBe(12);
    expect(viaGraphql.errors?.[0].extensions?.catId).toBe(12);
    expect(viaGraphql.errors?.[0].message).toBe(viaRest.msg);
  });
});

describe("Project exposes categories and products", () => {
  it("lists the demo's categories and non-private products with their details, batched for many projects", async () => {
    const data = await graphqlData<{
      projects: { groupId: number; categories: Record<string, unknown>[]; products: Record<string, unknown>[] }[];
    }>(
      t.app,
      `{ projects(withArchived: true) { groupId
          categories { catId name topRemark quotaOrdered interchange mandatory }
          products { pId name price baseProductType productType catId startDate endDate onlyOne internalId parentPId } } }`,
      {},
    );
    const camp = data.projects.find((p) => p.groupId === g)!;
    expect(camp.categories.slice(0, 3)).toEqual([
      {
        catId: 12,
        name: "Camp weeks",
        topRemark: "Pick your weeks",
        quotaOrdered: 4,
        interchange: false,
        mandatory: false,
      },
      {
        catId: 13,
        name: "Lodging",
        topRemark: "One lodging per camper",
        quotaOrdered: null,
        interchange: true,
        mandatory: true,
      },
      { catId: 14, name: "Extras", topRemark: null, quotaOrdered: null, interchange: false, mandatory: false },
    ]);
    expect(camp.products.find((p) => p.pId === 77)).toEqual({
      pId: 77,
      name: "Week 1",
      price: "350.00",
      baseProductType: 1,
      productType: 0,
      catId: 12,
      startDate: "2026-01-01T00:00:00.000Z",
      endDate: "2027-08-31T23:59:59.999Z",
      onlyOne: true,
      internalId: "W1",
      parentPId: null,
    });
    expect(camp.products.find((p) => p.pId === 712)).toMatchObject({ baseProductType: 4, parentPId: 711 });
    // Private products belong to one cart and are never listed.
    const [{ count }] = await query(`SELECT COUNT(*) AS count FROM product WHERE project_id = ? AND is_private = 1`, [
      g,
    ]);
    expect(Number(count)).toBeGreaterThan(0);
    expect(camp.products.length).toBe(
      Number(
        (await query(`SELECT COUNT(*) AS count FROM product WHERE project_id = ? AND is_private = 0`, [g]))[0].count,
      ),
    );
  });
});
