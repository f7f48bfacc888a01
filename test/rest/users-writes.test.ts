import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { expectLegacyError } from "../support/legacy-error";
import { postRest } from "../support/rest";
import { uidOf } from "../support/rows";
import { watchTables } from "../support/tables";
import { expectUserEnvelope } from "./users-support";

// users create_child (contract §9), add_product (§13, §18) and set_status (§14), on the demo data:
// Summer Camp 2027 is a family project; Miles (parent) has Week 1 in his cart, Kind is his child.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const G = MAPLE.groupId;
const post = (body: Record<string, unknown>) => postRest(t.app, "users", { group_id: G, ...body });
const cartOf = async (cloginId: number) =>
  (
    await t.dataSource.query(
      `SELECT product_id, quantity, unit_price_cents, remark, recurring_start_date FROM cart_line WHERE registration_id = ? ORDER BY id`,
      [await uidOf(t.dataSource, G, cloginId)],
    )
  ).map((row: Record<string, unknown>) => ({
    productId: Number(row.product_id),
    quantity: Number(row.quantity),
    unitPriceCents: Number(row.unit_price_cents),
    remark: row.remark ?? null,
    recurringStartDate: row.recurring_start_date == null ? null : new Date(row.recurring_start_date as string),
  }));

async function newParent(email: string): Promise<number> {
  const res = await post({
    action: "create",
    clogin_id: false,
    submit_forms: false,
    doc: { main_email: email, first_name: "P" },
  });
  expect([res.status, res.body.msg]).toEqual([200, "User registered."]);
  return Number(res.body.user_info.clogin_id);
}

async function newChild(parent: number, doc: Record<string, unknown> = {}): Promise<number> {
  const res = await post({ action: "create_child", connected_to: parent, doc });
  expect(res.status).toBe(200);
  return Number(res.body.user_info.clogin_id);
}

describe("users create_child (contract §9)", () => {
  it("registers a new child of the parent: msg, system_action, user_info.connected_to, child-level forms, parent's count", async () => {
    const res = await post({
      action: "create_child",
      clogin_id: false,
      connected_to: String(MAPLE.miles),
      doc: { first_name: "Little", last_name: "Davis", _application_date: "2026-03-04" },
    });
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe("Child registered.");
    // first_name completes form 301, whose email trigger has no address for a child without one.
    expect(Object.keys(res.body)).toEqual(["success", "msg", "system_action", "notices", "user_info", "meta_info"]);
    expect(res.body.notices).toEqual([
      expect.stringMatching(/^The email trigger of form 301 did not send: user \d+ has no main email\.$/),
    ]);
    expect(res.body.system_action).toEqual(["child_registered"]);
    const child = Number(res.body.user_info.clogin_id);
    expectUserEnvelope(res.body, { cloginId: child, groupId: G, connectedTo: MAPLE.miles });
    expect(res.body.meta_info.u_name).toBe("Little Davis");
    expect(res.body.meta_info.application_date_raw).toBe("2026-03-04 00:00:00");
    // A child without a main email has no login.
    const [person] = await t.dataSource.query(`SELECT username, main_email FROM person WHERE id = ?`, [child]);
    expect([person.username, person.main_email]).toEqual([null, null]);

    const parent = await post({ action: "update", clogin_id: MAPLE.miles, doc: {} });
    expect(Number(parent.body.meta_info.total_non_excluded_children)).toBe(2);
  });

  it("two children without email may coexist (no username clash), and a given main_email becomes the username", async () => {
    const parent = await newParent("family-a@maple.test");
    await newChild(parent);
    await newChild(parent);
    const withEmail = await newChild(parent, { main_email: "kid@maple.test" });
    const [person] = await t.dataSource.query(`SELECT username FROM person WHERE id = ?`, [withEmail]);
    expect(person.username).toBe("kid@maple.test");
  });

  it("an existing person of the organization is registered as a child; registered already is 409 with clogin_id", async () => {
    const parent = await newParent("family-b@maple.test");
    const elsewhere = await postRest(t.app, "users", {
      action: "create",
      group_id: MAPLE.jazzGroupId,
      doc: { main_email: "jazz-kid@maple.test" },
    });
    const person = Number(elsewhere.body.user_info.clogin_id);
    const body = { action: "create_child", clogin_id: String(person), connected_to: parent, doc: [] };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body.user_info).toEqual({
      clogin_id: String(person),
      group_id: String(G),
      connected_to: String(parent),
    });
    const again = await post(body);
    expectLegacyError(again, 409, "CONFLICT", {
      msg: `User ${person} is already registered in project ${G}.`,
      extra: { clogin_id: String(person) },
    });
  });

  it("rules, every member problem at once, nothing written", async () => {
    const before = await watchTables(t.dataSource);
    const res = await post({
      action: "create_child",
      connected_to: "abc",
      doc: { main_email: "not-an-address", _application_date: "2026-02-30" },
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "connected_to", message: 'must be an integer or a string of digits, got "abc"' },
        {
          path: "doc._application_date",
          message: 'must be a calendar date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, got "2026-02-30"',
        },
      ],
    });
    const badEmail = await post({ action: "create_child", connected_to: MAPLE.miles, doc: { main_email: "nope" } });
    expectLegacyError(badEmail, 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.main_email", message: 'is not a valid email address: "nope"' }],
    });
    const noDoc = await post({ action: "create_child", connected_to: MAPLE.miles });
    expectLegacyError(noDoc, 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc", message: "is required (send {} when there is nothing to set)" }],
    });
    const noParent = await post({ action: "create_child", doc: {} });
    expectLegacyError(noParent, 400, "VALIDATION_FAILED", {
      errors: [{ path: "connected_to", message: "is required" }],
    });
    await before.expectNothingWritten();
  });

  it("connected_to must be a parent or individual of this project: a child or an unknown id is 400 naming it", async () => {
    for (const connectedTo of [MAPLE.childKind, 999999]) {
      const res = await post({ action: "create_child", connected_to: connectedTo, doc: {} });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        msg: `connected_to ${connectedTo} is not a parent or individual registered in project ${G}.`,
        errors: [{ path: "connected_to" }],
      });
    }
  });

  it("a project that keeps no families is 400 naming group_id", async () => {
    const res = await postRest(t.app, "users", {
      action: "create_child",
      group_id: MAPLE.jazzGroupId,
      connected_to: MAPLE.miles,
      doc: {},
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      msg: `group_id ${MAPLE.jazzGroupId} is not a family project; create_child needs one.`,
      errors: [{ path: "group_id" }],
    });
  });
});

describe("users set_status (contract §14)", () => {
  it("answers exactly the original's body, and changes only this user", async () => {
    const res = await post({ action: "set_status", clogin_id: String(MAPLE.miles), status_id: "9", doc: [] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      "msg",
      "msg_type",
      "users",
      "effected_users",
      "success",
      "user_info",
      "meta_info",
    ]);
    expect(res.body).toMatchObject({
      msg: "User status updated successfully.",
      msg_type: "success",
      users: [MAPLE.miles],
      effected_users: 1,
      success: true,
    });
    expect(res.body.meta_info).toMatchObject({ status_id: "9", status_name: "Accepted" });
    const [kid] = await t.dataSource.query(
      `SELECT status_id FROM registration WHERE project_id = ? AND person_id = ?`,
      [G, MAPLE.childKind],
    );
    expect(kid.status_id).toBeNull();
  });

  it("status_id 0 removes the status", async () => {
    const res = await post({ action: "set_status", clogin_id: MAPLE.bill, status_id: 0 });
    expect(res.status).toBe(200);
    expect(res.body.meta_info).toMatchObject({ status_id: "0", status_name: null, excluded: "0" });
  });

  it("a status of another project, a missing status_id, a non-empty doc: 400 naming the member; nothing written", async () => {
    const before = await watchTables(t.dataSource);
    expectLegacyError(
      await post({ action: "set_status", clogin_id: MAPLE.miles, status_id: 90 }),
      400,
      "VALIDATION_FAILED",
      {
        errors: [{ path: "status_id", message: "90 is not a status of this project (0 removes the status)" }],
      },
    );
    expectLegacyError(await post({ action: "set_status", clogin_id: MAPLE.miles }), 400, "VALIDATION_FAILED", {
      errors: [{ path: "status_id", message: "is required" }],
    });
    expectLegacyError(
      await post({ action: "set_status", clogin_id: MAPLE.miles, status_id: 9, doc: { status_id: 9 } }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "doc", message: "must be absent, {} or [] (this action takes no doc members)" }] },
    );
    await before.expectNothingWritten();
  });

  it("a user who is not registered in the project is 404 USER_NOT_FOUND", async () => {
    expectLegacyError(await post({ action: "set_status", clogin_id: 999999, status_id: 9 }), 404, "USER_NOT_FOUND");
  });
});

describe("users add_product (contract §13, §18)", () => {
  it("adds lines at the product's price: msg, system_action, cart_ids as strings, notices, meta_info totals", async () => {
    const parent = await newParent("cart-a@maple.test");
    const res = await post({
      action: "add_product",
      clogin_id: parent,
      product_list: [
        { p_id: "78", q: "2", product_remark: "size M" },
        { p_id: 713, q: 1, recurring_start_date: "09-01-2026" },
      ],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      "success",
      "msg",
      "system_action",
      "cart_ids",
      "notices",
      "user_info",
      "meta_info",
    ]);
    expect(res.body.msg).toBe("Products added to cart.");
    expect(res.body.system_action).toEqual(["product_added"]);
    expect(res.body.cart_ids).toHaveLength(2);
    for (const id of res.body.cart_ids) expect(id).toMatch(/^\d+$/);
    expect(res.body.notices).toEqual([]);
    expect(res.body.meta_info.total_order).toBe("36.00");
    expect(await cartOf(parent)).toEqual([
      { productId: 78, quantity: 2, unitPriceCents: 1550, remark: "size M", recurringStartDate: null },
      { productId: 713, quantity: 1, unitPriceCents: 500, remark: null, recurringStartDate: expect.any(Date) },
    ]);
    expect((await cartOf(parent))[1].recurringStartDate!.toISOString()).toBe("2026-09-01T00:00:00.000Z");
  });

  it("one object is accepted as a list of one; date_structure orders the date", async () => {
    const parent = await newParent("cart-b@maple.test");
    const res = await post({
      action: "add_product",
      clogin_id: parent,
      product_list: { p_id: 713, q: 1, recurring_start_date: "2026/10/05", date_structure: "yyyy/mm/dd" },
    });
    expect(res.status).toBe(200);
    expect((await cartOf(parent))[0].recurringStartDate!.toISOString()).toBe("2026-10-05T00:00:00.000Z");
  });

  it("only_one: q above 1 is cut to 1, a product already in the cart is not added again; both with notices", async () => {
    const res = await post({
      action: "add_product",
      clogin_id: MAPLE.miles,
      product_list: [
        { p_id: 77, q: 1 },
        { p_id: 79, q: 3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.cart_ids).toHaveLength(1);
    expect(res.body.notices).toEqual([
      "Product 77 can only be ordered once and is already in the cart; not added again.",
      "Product 79 can only be ordered once; q 3 was cut to 1.",
    ]);
    const again = await post({ action: "add_product", clogin_id: MAPLE.miles, product_list: [{ p_id: 79, q: 1 }] });
    expect(again.body.cart_ids).toEqual([]);
  });

  it("a discount line takes its price off the order, which never goes below 0.00", async () => {
    const parent = await newParent("cart-c@maple.test");
    const child = await newChild(parent);
    const res = await post({ action: "add_product", clogin_id: child, product_list: [{ p_id: 710, q: 1 }] });
    expect(res.status).toBe(200);
    expect(res.body.meta_info.total_order).toBe("0.00");
    const more = await post({ action: "add_product", clogin_id: child, product_list: [{ p_id: 714, q: 1 }] });
    expect(more.body.meta_info.total_order).toBe("95.00");
  });

  it("category rules: interchange allows one line of the category, the quota caps units; 400 naming the entry, nothing written", async () => {
    const parent = await newParent("cart-d@maple.test");
    const child = await newChild(parent);
    const before = await watchTables(t.dataSource);
    const res = await post({
      action: "add_product",
      clogin_id: child,
      product_list: [
        { p_id: 714, q: 1 },
        { p_id: 715, q: 1 },
        { p_id: 78, q: 1 },
      ],
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        {
          path: "product_list[1]",
          message:
            "product 715 is in category 13, whose products are interchangeable: the cart may hold only one of them",
        },
      ],
    });
    await before.expectNothingWritten();
    // Camp weeks (category 12) holds at most 4 units; Miles already has Week 1.
    const weeks = await post({
      action: "add_product",
      clogin_id: parent,
      product_list: [
        { p_id: 77, q: 1 },
        { p_id: 79, q: 1 },
      ],
    });
    expect(weeks.status).toBe(200);
  });

  it("the quota counts units across the cart and the call", async () => {
    const t2 = t.dataSource;
    await t2.query(`UPDATE product_category SET quota_ordered = 2 WHERE id = 14`);
    try {
      const parent = await newParent("cart-e@maple.test");
      const res = await post({
        action: "add_product",
        clogin_id: parent,
        product_list: [
          { p_id: 78, q: 1 },
          { p_id: 712, q: 2 },
        ],
      });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        errors: [
          { path: "product_list[1]", message: "product 712 would bring category 14 to 3 units; its quota is 2" },
        ],
      });
    } finally {
      await t2.query(`UPDATE product_category SET quota_ordered = NULL WHERE id = 14`);
    }
  });

  it("products the user may not add, bad quantities and dates: every entry's problem at once, nothing written", async () => {
    const before = await watchTables(t.dataSource);
    const res = await post({
      action: "add_product",
      clogin_id: MAPLE.miles,
      product_list: [
        { p_id: 714, q: 1 },
        { p_id: 999, q: 1 },
        { p_id: 78, q: 0 },
        { p_id: 78, q: 1, recurring_start_date: "13-01-2026" },
        { p_id: 78, q: 1, recurring_start_date: "01-01-2026" },
      ],
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "product_list[2].q", message: "must be an integer from 1 to 999, got 0" },
        { path: "product_list[3].recurring_start_date", message: 'must be a date as mm-dd-yyyy, got "13-01-2026"' },
      ],
    });
    const refs = await post({
      action: "add_product",
      clogin_id: MAPLE.miles,
      product_list: [
        { p_id: 714, q: 1 },
        { p_id: 999, q: 1 },
        { p_id: 78, q: 1, recurring_start_date: "01-01-2026" },
      ],
    });
    expectLegacyError(refs, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "product_list[0].p_id", message: /^714 is not a product of this project that this user may add now/ },
        { path: "product_list[1].p_id", message: /^999 is not a product/ },
        {
          path: "product_list[2].recurring_start_date",
          message: "is only accepted for subscriptions (type 6); product 78 is type 7",
        },
      ],
    });
    await before.expectNothingWritten();
  });

  it("a product outside its availability dates is refused", async () => {
    await t.dataSource.query(`UPDATE product SET available_until = ? WHERE id = 78`, ["2020-01-01 00:00:00.000"]);
    try {
      const res = await post({ action: "add_product", clogin_id: MAPLE.miles, product_list: [{ p_id: 78, q: 1 }] });
      expectLegacyError(res, 400, "VALIDATION_FAILED", { errors: [{ path: "product_list[0].p_id" }] });
    } finally {
      await t.dataSource.query(`UPDATE product SET available_until = NULL WHERE id = 78`);
    }
  });

  it("a private product is made for this cart by name and price", async () => {
    const parent = await newParent("cart-f@maple.test");
    const res = await post({
      action: "add_product",
      clogin_id: parent,
      product_list: [{ name: "Late pickup fee", price: "12.5", q: 2, product_remark: "twice" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.meta_info.total_order).toBe("25.00");
    const [line] = await cartOf(parent);
    const [product] = await t.dataSource.query(`SELECT name, is_private, project_id FROM product WHERE id = ?`, [
      line.productId,
    ]);
    expect([product.name, Number(product.is_private), Number(product.project_id)]).toEqual(["Late pickup fee", 1, G]);
    expectLegacyError(
      await post({ action: "add_product", clogin_id: parent, product_list: [{ name: "", price: "1.234", q: 1 }] }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "product_list[0].name" }, { path: "product_list[0].price" }] },
    );
  });

  it("product_list: required, 1–50 entries", async () => {
    expectLegacyError(await post({ action: "add_product", clogin_id: MAPLE.miles }), 400, "VALIDATION_FAILED", {
      errors: [{ path: "product_list", message: "is required" }],
    });
    expectLegacyError(
      await post({ action: "add_product", clogin_id: MAPLE.miles, product_list: [] }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "product_list", message: "must hold at least one product" }] },
    );
    const many = Array.from({ length: 51 }, () => ({ p_id: 78, q: 1 }));
    expectLegacyError(
      await post({ action: "add_product", clogin_id: MAPLE.miles, product_list: many }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "product_list", message: "must hold at most 50 products, got 51" }] },
    );
  });
});

describe("users update accepts the person's own fields in every project (contract §17)", () => {
  it("first_name, last_name, org_name, main_email update the person (and a mapped field); the username stays", async () => {
    const res = await post({
      action: "update",
      clogin_id: MAPLE.bill,
      doc: { first_name: "William", last_name: "Evans-Smith", org_name: "Trio", main_email: "bill.new@maple.test" },
      submit_forms: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.notices).toBeUndefined();
    expect(res.body.meta_info.u_name).toBe("William Evans-Smith");
    const [person] = await t.dataSource.query(
      `SELECT username, first_name, last_name, org_name, main_email FROM person WHERE id = ?`,
      [MAPLE.bill],
    );
    expect(person).toMatchObject({
      username: "bill@maple.test",
      first_name: "William",
      last_name: "Evans-Smith",
      org_name: "Trio",
      main_email: "bill.new@maple.test",
    });
    // first_name is mapped to f_301_1 in the demo project: that field follows.
    const [value] = await t.dataSource.query(
      `SELECT value FROM field_value WHERE registration_id = ? AND field_id = ?`,
      [await uidOf(t.dataSource, G, MAPLE.bill), "f_301_1"],
    );
    expect(value.value).toBe("William");
  });

  it("an invalid main_email is not written, with a notice (as for any value update refuses); the rest is", async () => {
    const res = await post({ action: "update", clogin_id: MAPLE.bill, doc: { main_email: "nope", last_name: "X" } });
    expect(res.status).toBe(200);
    expect(res.body.notices).toEqual(['"main_email" is not a valid email address; it was not written.']);
    const [person] = await t.dataSource.query(`SELECT last_name, main_email FROM person WHERE id = ?`, [MAPLE.bill]);
    expect(person).toEqual({ last_name: "X", main_email: "bill.new@maple.test" });
  });
});
