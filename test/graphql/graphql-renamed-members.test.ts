import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql, graphqlData } from "./graphql-client";

// Issue 24 §5: one name per idea (productId, categoryId, parentProductId, quantity). The old
// names stay for one release, marked @deprecated; an input takes either spelling, never both.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const g = MAPLE.groupId;
const ADD_PRODUCT = `mutation($input: AddProductInput!) { addProduct(input: $input) { cartIds problems { field reason message } } }`;
const CREATE_PRODUCT = `mutation($input: CreateProductInput!) { createProduct(input: $input) { productId problems { field reason message } } }`;

const cartLines = async (cloginId: number) =>
  (await t.dataSource.query(
    `SELECT c.product_id, c.quantity FROM cart_line c JOIN registration r ON r.uid = c.registration_id
      WHERE r.project_id = ? AND r.person_id = ? ORDER BY c.id`,
    [g, cloginId],
  )) as { product_id: number; quantity: number }[];

/** A refused input's problems, from the mutation's payload (the only root field of these operations). */
const problemsOf = (response: { errors?: unknown[]; data?: Record<string, unknown> | null }) => {
  expect(response.errors).toBeUndefined();
  const payload = Object.values(response.data ?? {})[0] as {
    problems: { field: string; reason: string; message: string }[];
  };
  return payload.problems.map((problem) => ({ path: problem.field, reason: problem.reason, message: problem.message }));
};

describe("Product and ProductCategory", () => {
  it("answer the new names with the values of the deprecated ones", async () => {
    const { project } = await graphqlData<{
      project: { categories: Record<string, number>[]; products: Record<string, number | null>[] };
    }>(
      t.app,
      `query($g: Int!) { project(groupId: $g) {
         categories { categoryId catId }
         products { productId pId categoryId catId parentProductId parentPId } } }`,
      { g },
    );
    expect(project.categories.length).toBeGreaterThan(0);
    for (const category of project.categories) expect(category.categoryId).toBe(category.catId);
    expect(project.products.length).toBeGreaterThan(0);
    for (const product of project.products) {
      expect(product.productId).toBe(product.pId);
      expect(product.categoryId).toBe(product.catId);
      expect(product.parentProductId).toBe(product.parentPId);
    }
    expect(project.products.some((product) => product.categoryId !== null)).toBe(true);
  });

  it("introspection marks each old name deprecated with the name to use", async () => {
    const { data } = await graphql<Record<string, { fields?: unknown[]; inputFields?: unknown[] }>>(
      t.app,
      `
        {
          product: __type(name: "Product") {
            fields(includeDeprecated: true) {
              name
              deprecationReason
            }
          }
          category: __type(name: "ProductCategory") {
            fields(includeDeprecated: true) {
              name
              deprecationReason
            }
          }
          cart: __type(name: "CartEntryInput") {
            inputFields(includeDeprecated: true) {
              name
              deprecationReason
            }
          }
          create: __type(name: "CreateProductInput") {
            inputFields(includeDeprecated: true) {
              name
              deprecationReason
            }
          }
          page: __type(name: "WebhookDeliveryPage") {
            fields(includeDeprecated: true) {
              name
              deprecationReason
            }
          }
        }
      `,
    );
    const deprecated = Object.fromEntries(
      Object.entries(data!).map(([type, answer]) => [
        type,
        Object.fromEntries(
          ((answer.fields ?? answer.inputFields) as { name: string; deprecationReason: string | null }[])
            .filter((field) => field.deprecationReason !== null)
            .map((field) => [field.name, field.deprecationReason]),
        ),
      ]),
    );
    expect(deprecated).toEqual({
      product: {
        pId: "Use productId; removed in the next release.",
        catId: "Use categoryId; removed in the next release.",
        parentPId: "Use parentProductId; removed in the next release.",
      },
      category: { catId: "Use categoryId; removed in the next release." },
      cart: {
        pId: "Use productId; removed in the next release.",
        q: "Use quantity; removed in the next release.",
      },
      create: {
        catId: "Use categoryId; removed in the next release.",
        parentPId: "Use parentProductId; removed in the next release.",
      },
      page: {
        nodes: "Use edges { node }; removed in the next release.",
        hasNextPage: "Use pageInfo { hasNextPage }; removed in the next release.",
        endCursor: "Use pageInfo { endCursor }; removed in the next release.",
      },
    });
  });
});

describe("addProduct's CartEntryInput", () => {
  it("takes productId and quantity, and still the deprecated pId and q", async () => {
    const before = (await cartLines(MAPLE.bill)).length;
    const added = await graphql(t.app, ADD_PRODUCT, {
      input: {
        groupId: g,
        cloginId: MAPLE.bill,
        productList: [
          { productId: 78, quantity: 2 },
          { pId: 78, q: 3 },
        ],
      },
    });
    expect(added.errors).toBeUndefined();
    expect(
      (await cartLines(MAPLE.bill)).slice(before).map((line) => [Number(line.product_id), Number(line.quantity)]),
    ).toEqual([
      [78, 2],
      [78, 3],
    ]);
  });

  it("both spellings of one member is BAD_USER_INPUT naming both, and nothing is written", async () => {
    const before = await cartLines(MAPLE.bill);
    const res = await graphql(t.app, ADD_PRODUCT, {
      input: { groupId: g, cloginId: MAPLE.bill, productList: [{ productId: 77, quantity: 1, q: 1 }] },
    });
    expect(problemsOf(res)).toEqual([
      {
        path: "input.productList[0].quantity",
        reason: "CONFLICTING_MEMBERS",
        message: "and q name the same member (q is deprecated); give only quantity",
      },
    ]);
    expect(await cartLines(MAPLE.bill)).toEqual(before);
  });

  it("a problem names the member in the spelling the client used", async () => {
    const missing = await graphql(t.app, ADD_PRODUCT, {
      input: { groupId: g, cloginId: MAPLE.bill, productList: [{ productId: 77 }] },
    });
    expect(problemsOf(missing)?.map((problem) => problem.path)).toEqual(["input.productList[0].quantity"]);
    const oldSpelling = await graphql(t.app, ADD_PRODUCT, {
      input: { groupId: g, cloginId: MAPLE.bill, productList: [{ pId: 77, q: 0 }] },
    });
    expect(problemsOf(oldSpelling)?.map((problem) => problem.path)).toEqual(["input.productList[0].q"]);
    const unknown = await graphql(t.app, ADD_PRODUCT, {
      input: { groupId: g, cloginId: MAPLE.bill, productList: [{ productId: 999999, quantity: 1 }] },
    });
    expect(problemsOf(unknown)?.map((problem) => problem.path)).toEqual(["input.productList[0].productId"]);
  });
});

describe("createProduct's CreateProductInput", () => {
  const base = { groupId: g, baseProductType: 1, productPrice: "10.00" };
  const categoryOf = async (productId: number) =>
    Number(
      (
        (await t.dataSource.query("SELECT category_id FROM product WHERE id = ?", [productId])) as {
          category_id: number;
        }[]
      )[0].category_id,
    );

  it("takes categoryId, and still the deprecated catId", async () => {
    const viaNew = await graphqlData<{ createProduct: { productId: number } }>(t.app, CREATE_PRODUCT, {
      input: { ...base, productName: "Renamed new", categoryId: 13 },
    });
    const viaOld = await graphqlData<{ createProduct: { productId: number } }>(t.app, CREATE_PRODUCT, {
      input: { ...base, productName: "Renamed old", catId: 14 },
    });
    expect(await categoryOf(viaNew.createProduct.productId)).toBe(13);
    expect(await categoryOf(viaOld.createProduct.productId)).toBe(14);
  });

  it("refuses both spellings, and names the member as sent in problems", async () => {
    const both = await graphql(t.app, CREATE_PRODUCT, {
      input: { ...base, productName: "Both", categoryId: 13, catId: 13 },
    });
    expect(problemsOf(both)).toEqual([
      {
        path: "input.categoryId",
        reason: "CONFLICTING_MEMBERS",
        message: "and catId name the same member (catId is deprecated); give only categoryId",
      },
    ]);
    const neither = await graphql(t.app, CREATE_PRODUCT, { input: { ...base, productName: "Neither" } });
    expect(problemsOf(neither)?.map((problem) => problem.path)).toEqual(["input.categoryId"]);
    const badOld = await graphql(t.app, CREATE_PRODUCT, { input: { ...base, productName: "Bad", catId: 999 } });
    expect(problemsOf(badOld)?.map((problem) => problem.path)).toEqual(["input.catId"]);
    const badParent = await graphql(t.app, CREATE_PRODUCT, {
      input: { ...base, productName: "Bad parent", categoryId: 13, parentProductId: 77 },
    });
    expect(problemsOf(badParent)?.map((problem) => problem.path)).toEqual(["input.parentProductId"]);
    const rows = (await t.dataSource.query(
      "SELECT id FROM product WHERE name IN ('Both', 'Neither', 'Bad', 'Bad parent')",
    )) as unknown[];
    expect(rows).toEqual([]);
  });
});

describe("createCategory's CONFLICT", () => {
  it("carries the existing category's id as categoryId, and as the deprecated catId", async () => {
    const res = await graphql(
      t.app,
      `
        mutation ($input: CreateCategoryInput!) {
          createCategory(input: $input) {
            categoryId
          }
        }
      `,
      { input: { groupId: g, categoryName: "Extras" } },
    );
    expect(res.errors?.[0].extensions).toMatchObject({ code: "CONFLICT", categoryId: 14, catId: 14 });
  });
});
