import request from "supertest";
import { Product, ProductCategory } from "../../src/entities";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const post = (action: string, doc: unknown, groupId: number = MAPLE.groupId) =>
  request(t.app)
    .post("/reg/api2/products/")
    .set(mapleHeaders)
    .send({ action, group_id: groupId, doc } as object);

const CAMP_WEEKS = 12;
const SWIM_HOLDER = 711;
const counts = async () => ({
  products: await t.dataSource.manager.count(Product),
  categories: await t.dataSource.manager.count(ProductCategory),
});

function expectInvalid(res: request.Response, problems: { path: string; message: string }[]) {
  expect(res.status).toBe(400);
  expect(res.body.error_code).toBe("VALIDATION_FAILED");
  expect(res.body.errors).toEqual(problems);
  for (const problem of problems) expect(res.body.msg).toContain(`${problem.path} ${problem.message}`);
}

describe("products create (contract §15)", () => {
  it("answers the legacy shape key by key with a numeric p_id, and stores every member", async () => {
    const res = await post("create", {
      base_product_type: "1",
      product_name: "  Week 3  ",
      product_price: "350.5",
      cat_id: String(CAMP_WEEKS),
      product_type: 2,
      product_start_date: "2026-01-01",
      product_end_date: "2027-08-31 18:00:00",
      product_short_remarks: "Mon–Fri",
      location: "Lake site",
      internalid: "W3",
      misc1: "a",
      misc2: "b",
      lock_once_funds_allocated: "1",
      only_one: "true",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["msg", "msg_type", "p_id", "success"]);
    expect(res.body).toMatchObject({ msg: "Product created successfully.", msg_type: "info", success: true });
    expect(typeof res.body.p_id).toBe("number");
    const stored = await t.dataSource.manager.findOneByOrFail(Product, { id: res.body.p_id });
    expect(stored).toMatchObject({
      projectId: MAPLE.groupId,
      name: "Week 3",
      priceCents: 35050,
      baseType: 1,
      categoryId: CAMP_WEEKS,
      level: "child",
      onlyOne: true,
      lockOnceFundsAllocated: true,
      remarks: "Mon–Fri",
      location: "Lake site",
      internalId: "W3",
      misc1: "a",
      misc2: "b",
      parentProductId: null,
      isPrivate: false,
    });
    expect(new Date(stored.availableFrom!).toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(new Date(stored.availableUntil!).toISOString()).toBe("2027-08-31T18:00:00.000Z");
  });

  it("defaults: product_type 0 is parent and child, flags false, no dates", async () => {
    const res = await post("create", { base_product_type: 7, product_name: "Cap", product_price: 0, cat_id: 14 });
    expect(res.status).toBe(200);
    expect(await t.dataSource.manager.findOneByOrFail(Product, { id: res.body.p_id })).toMatchObject({
      level: "all",
      onlyOne: false,
      lockOnceFundsAllocated: false,
      availableFrom: null,
      availableUntil: null,
      priceCents: 0,
    });
  });

  it("a session (4) belongs to a session holder of the project", async () => {
    const res = await post("create", {
      base_product_type: 4,
      product_name: "Swim lessons, evenings",
      product_price: "60.00",
      cat_id: 14,
      parent_p_id: SWIM_HOLDER,
    });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(Product, { id: res.body.p_id })).parentProductId).toBe(
      SWIM_HOLDER,
    );
  });

  it("reports every broken rule at once, and writes nothing", async () => {
    const before = await counts();
    const res = await post("create", {
      base_product_type: 5,
      product_name: "",
      product_price: "12.345",
      product_type: 3,
      product_short_remarks: "x".repeat(2001),
      location: "y".repeat(256),
      only_one: "yes",
    });
    expectInvalid(res, [
      {
        path: "doc.base_product_type",
        message: "5 (days within a session) is made by the system and cannot be created",
      },
      { path: "doc.product_name", message: "must not be empty" },
      { path: "doc.product_price", message: 'must be an amount of at least 0 with at most 2 decimals, got "12.345"' },
      { path: "doc.cat_id", message: "is required" },
      { path: "doc.product_type", message: "must be 0 (parent and child), 1 (parent only) or 2 (child only), got 3" },
      { path: "doc.product_short_remarks", message: "must be at most 2000 characters, got 2001" },
      { path: "doc.location", message: "must be at most 255 characters, got 256" },
      { path: "doc.only_one", message: 'must be true or false (also 1/0, "true"/"false", "1"/"0"), got "yes"' },
    ]);
    expect(res.body.msg).toMatch(/^Invalid product: /);
    expect(await counts()).toEqual(before);
  });

  it("references: a category of another project and a session without a session holder, with the shape problems", async () => {
    const res = await post("create", {
      base_product_type: 4,
      product_name: "Orphan session",
      product_price: -1,
      cat_id: 999,
      parent_p_id: 77,
    });
    expectInvalid(res, [
      { path: "doc.product_price", message: "must be an amount of at least 0 with at most 2 decimals, got -1" },
      { path: "doc.cat_id", message: "999 is not a category of this project" },
      { path: "doc.parent_p_id", message: "77 is not a session holder (type 3) of this project" },
    ]);
  });

  it("a session needs parent_p_id; other types refuse it", async () => {
    expectInvalid(await post("create", { base_product_type: 4, product_name: "S", product_price: 1, cat_id: 14 }), [
      { path: "doc.parent_p_id", message: "is required" },
    ]);
    expectInvalid(
      await post("create", { base_product_type: 1, product_name: "E", product_price: 1, cat_id: 14, parent_p_id: 711 }),
      [{ path: "doc.parent_p_id", message: "is only accepted for a session (type 4)" }],
    );
  });

  it("a discount needs a price above 0; merchandise takes no dates; the end is not before the start", async () => {
    expectInvalid(
      await post("create", { base_product_type: 2, product_name: "D", product_price: "0.00", cat_id: 14 }),
      [{ path: "doc.product_price", message: "must be more than 0 for a discount" }],
    );
    expectInvalid(
      await post("create", {
        base_product_type: 7,
        product_name: "M",
        product_price: 1,
        cat_id: 14,
        product_start_date: "2026-01-01",
      }),
      [{ path: "doc.product_start_date", message: "is not accepted for merchandise (type 7), which has no dates" }],
    );
    expectInvalid(
      await post("create", {
        base_product_type: 1,
        product_name: "E",
        product_price: 1,
        cat_id: 14,
        product_start_date: "2026-05-02",
        product_end_date: "2026-05-01",
      }),
      [{ path: "doc.product_end_date", message: 'must not be before product_start_date "2026-05-02"' }],
    );
    expectInvalid(
      await post("create", {
        base_product_type: 1,
        product_name: "E",
        product_price: 1,
        cat_id: 14,
        product_start_date: "01/05/2026",
      }),
      [
        {
          path: "doc.product_start_date",
          message: 'must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, got "01/05/2026"',
        },
      ],
    );
  });

  it("a project of another organization is 403 FORBIDDEN", async () => {
    const res = await post(
      "create",
      { base_product_type: 7, product_name: "X", product_price: 1, cat_id: 14 },
      OTHER.groupId,
    );
    expect(res.status).toBe(403);
    expect(res.body.msg).toBe(`group_id ${OTHER.groupId} is not a project of your organization`);
  });

  it("doc is required", async () => {
    const res = await request(t.app)
      .post("/reg/api2/products/")
      .set(mapleHeaders)
      .send({ action: "create", group_id: MAPLE.groupId });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "doc", message: "is required (a JSON object)" }]);
  });
});

describe("products create_category (contract §15)", () => {
  it("answers the legacy shape with a numeric cat_id and stores every member", async () => {
    const res = await post("create_category", {
      category_name: "Fall Performances",
      category_top_remark: "Pick one",
      category_bottom_remark: "See you there",
      category_quota_ordered: "12",
      interchange_category: 0,
      mandatory_category: "1",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["msg", "msg_type", "cat_id", "success"]);
    expect(res.body).toMatchObject({ msg: "Category created successfully.", msg_type: "info", success: true });
    expect(typeof res.body.cat_id).toBe("number");
    expect(await t.dataSource.manager.findOneByOrFail(ProductCategory, { id: res.body.cat_id })).toMatchObject({
      name: "Fall Performances",
      nameKey: "fall performances",
      topRemark: "Pick one",
      bottomRemark: "See you there",
      quotaOrdered: 12,
      interchange: false,
      mandatory: true,
    });
  });

  it("absent quota is unlimited (null)", async () => {
    const res = await post("create_category", { category_name: "Open extras" });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(ProductCategory, { id: res.body.cat_id })).quotaOrdered).toBe(
      null,
    );
  });

  it("a name taken in the project, in any case, is 409 with the existing cat_id, and nothing is written", async () => {
    const before = await counts();
    const res = await post("create_category", { category_name: "CAMP weeks" });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe("CONFLICT");
    expect(res.body.cat_id).toBe(CAMP_WEEKS);
    expect(res.body.msg).toBe(
      `Category name "CAMP weeks" is taken in this project by cat_id ${CAMP_WEEKS} ("Camp weeks"); names are compared case-insensitively.`,
    );
    expect(await counts()).toEqual(before);
  });

  it("reports every broken rule at once", async () => {
    expectInvalid(
      await post("create_category", {
        category_name: "z".repeat(201),
        category_top_remark: 5,
        category_quota_ordered: 0,
        interchange_category: "maybe",
      }),
      [
        { path: "doc.category_name", message: "must be at most 200 characters, got 201" },
        { path: "doc.category_top_remark", message: "must be a string, got 5" },
        { path: "doc.category_quota_ordered", message: "must be at least 1 (leave it out for no limit)" },
        {
          path: "doc.interchange_category",
          message: 'must be true or false (also 1/0, "true"/"false", "1"/"0"), got "maybe"',
        },
      ],
    );
  });
});
