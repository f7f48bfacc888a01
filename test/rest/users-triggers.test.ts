import { startTestApp, type TestApp } from "../support/test-app";
import { formStates, storedValue, triggerEffects } from "../support/rows";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { watchTables } from "../support/tables";

// Form submission and triggers, submit_forms and disable_email_sending (contract §4).
// Each test uses its own user so the order of tests does not matter.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixtureWithUsers(710000, 12, "u") });
});
afterAll(() => t.close());

const update = (cloginId: number, doc: unknown, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", { action: "update", group_id: LAB.groupId, clogin_id: cloginId, doc, ...extra });
const effects = (cloginId: number) => triggerEffects(t.dataSource, LAB.groupId, cloginId);
const user = (i: number) => 710000 + i;

describe("form submission (contract §4)", () => {
  it("saving a field submits its form; with every mandatory field holding a value the form is complete and its triggers run", async () => {
    const res = await update(user(0), { first_name: "Una" });
    expect(res.status).toBe(200);
    const states = await formStates(t.dataSource, LAB.groupId, user(0));
    expect(states.get(501)).toMatchObject({ completed: true });
    expect(states.get(501)!.completedAt).not.toBeNull();
    expect(states.get(501)!.submittedAt).toEqual(states.get(501)!.completedAt);
    const { cart, history, outbox, firings } = await effects(user(0));
    // send_email: an outbox row (pending) and an email record (origin trigger) to the main email
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({
      to_addresses: "u0@lab.test",
      subject: "Profile received",
      body: "<p>Thanks</p>",
      state: "queued",
    });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ to_addresses: "u0@lab.test", subject: "Profile received", origin: "trigger" });
    // add_product: a cart line at the product's price, with the trigger's quantity
    expect(cart).toHaveLength(1);
    expect(cart[0]).toMatchObject({ product_id: LAB.products.kit });
    expect(Number(cart[0].quantity)).toBe(2);
    expect(Number(cart[0].unit_price_cents)).toBe(1250);
    // add_form: the form joins the set, not complete
    expect(states.get(502)).toMatchObject({ completed: false, completedAt: null, submittedAt: null });
    expect(firings).toHaveLength(3);
    // meta_info reflects it
    expect(res.body.meta_info).toMatchObject({
      total_forms: "5",
      completed_forms: "1",
      total_order: "25.00",
      total_balance: "25.00",
    });
  });

  it("a submission with an empty mandatory field does not go through (as a browser refuses it): values saved, no completion, no triggers", async () => {
    const res = await update(user(1), { f_501_3: "20" });
    expect(res.body.success).toBe(true);
    expect(await storedValue(t.dataSource, LAB.groupId, user(1), "f_501_3")).toBe("20");
    expect((await formStates(t.dataSource, LAB.groupId, user(1))).get(501)).toMatchObject({
      completed: false,
      submittedAt: null,
    });
    const { cart, history, outbox, firings } = await effects(user(1));
    expect([cart.length, history.length, outbox.length, firings.length]).toEqual([0, 0, 0, 0]);
  });

  it("each trigger acts at most once per registration: changed values submit again but add no second product or email", async () => {
    await update(user(2), { first_name: "Uma" });
    await update(user(2), { first_name: "Umar", f_501_3: "5" });
    await update(user(2), { f_501_3: "6" });
    const { cart, history, outbox, firings } = await effects(user(2));
    expect([cart.length, history.length, outbox.length, firings.length]).toEqual([1, 1, 1, 3]);
  });

  it("a form already submitted and unchanged is not submitted twice: a repeated call changes nothing", async () => {
    await update(user(3), { first_name: "Ugo", f_501_3: "7" });
    const tables = await watchTables(t.dataSource);
    const res = await update(user(3), { first_name: "Ugo", f_501_3: 7 });
    expect(res.body.success).toBe(true);
    await tables.expectNothingWritten();
  });

  it("a changed value resubmits a complete form: submitted_at moves, completed_at stays", async () => {
    await update(user(4), { first_name: "Ula" });
    const first = (await formStates(t.dataSource, LAB.groupId, user(4))).get(501)!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await update(user(4), { f_501_3: "9" });
    const second = (await formStates(t.dataSource, LAB.groupId, user(4))).get(501)!;
    expect(second.completedAt).toBe(first.completedAt);
    expect(second.submittedAt).not.toBe(first.submittedAt);
  });

  it("a form stays complete when a later save empties a mandatory field (completion is never taken back)", async () => {
    await update(user(5), { first_name: "Uri" });
    await update(user(5), { first_name: "" });
    expect((await formStates(t.dataSource, LAB.groupId, user(5))).get(501)).toMatchObject({ completed: true });
  });
});

describe("concurrency (contract §4: at most once per registration)", () => {
  it("six concurrent updates of one user all succeed and fire each trigger once", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => update(user(11), { first_name: `Zed${i}` })));
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const { cart, history, outbox, firings } = await effects(user(11));
    expect([cart.length, history.length, outbox.length, firings.length]).toEqual([1, 1, 1, 3]);
  });
});

describe("submit_forms and disable_email_sending (contract §4)", () => {
  it("contract §4: with submit_forms false the values are saved and the form is not submitted (no triggers)", async () => {
    const res = await update(user(6), { first_name: "Val" }, { submit_forms: false });
    expect(res.body.success).toBe(true);
    expect(await storedValue(t.dataSource, LAB.groupId, user(6), "f_501_1")).toBe("Val");
    expect((await formStates(t.dataSource, LAB.groupId, user(6))).get(501)).toMatchObject({
      completed: false,
      submittedAt: null,
    });
    const { cart, history, outbox, firings } = await effects(user(6));
    expect([cart.length, history.length, outbox.length, firings.length]).toEqual([0, 0, 0, 0]);
    // The form was never submitted, so sending the same value again (submit_forms default true) submits it.
    await update(user(6), { first_name: "Val" });
    expect((await formStates(t.dataSource, LAB.groupId, user(6))).get(501)).toMatchObject({ completed: true });
    expect((await effects(user(6))).firings).toHaveLength(3);
  });

  it("disable_email_sending suppresses only the email trigger; it stays unfired and acts on a later submission (our decision)", async () => {
    await update(user(7), { first_name: "Wes" }, { disable_email_sending: true });
    let now = await effects(user(7));
    expect([now.cart.length, now.history.length, now.outbox.length]).toEqual([1, 0, 0]);
    expect((await formStates(t.dataSource, LAB.groupId, user(7))).has(502)).toBe(true);
    expect(now.firings).toHaveLength(2);
    await update(user(7), { f_501_3: "44" });
    now = await effects(user(7));
    expect([now.cart.length, now.history.length, now.outbox.length, now.firings.length]).toEqual([1, 1, 1, 3]);
  });

  it("send_email to a literal address writes the outbox row and the record to that address", async () => {
    await update(user(8), { f_504_1: ["Yes"] });
    const { outbox, history } = await effects(user(8));
    expect(outbox.map((row) => row.to_addresses)).toEqual(["office@lab.test"]);
    expect(history.map((row) => [row.to_addresses, row.origin, row.subject])).toEqual([
      ["office@lab.test", "trigger", "Consent given"],
    ]);
  });

  it("send_email to main_email for a user without one: a notice, nothing sent, the trigger stays unfired", async () => {
    const res = await update(LAB.bob, { first_name: "Bobby" });
    expect(res.body.notices).toEqual(["The email trigger of form 501 did not send: user 700002 has no main email."]);
    const { outbox, history, cart } = await effects(LAB.bob);
    expect([outbox.length, history.length, cart.length]).toEqual([0, 0, 1]);
  });

  it("a mapped main_email field changes the person's main email first, so the trigger email goes to the new address", async () => {
    await update(user(9), { main_email: "new9@lab.test", first_name: "Xia" });
    const { outbox } = await effects(user(9));
    expect(outbox.map((row) => row.to_addresses)).toEqual(["new9@lab.test"]);
    const [person] = await t.dataSource.query(`SELECT main_email FROM person WHERE id = ?`, [user(9)]);
    expect(person.main_email).toBe("new9@lab.test");
  });

  it("add_product copies the product's current price at the time of the submission", async () => {
    await t.dataSource.query(`UPDATE product SET price_cents = 1999 WHERE id = ?`, [LAB.products.kit]);
    try {
      await update(user(10), { first_name: "Yan" });
      const { cart } = await effects(user(10));
      expect(Number(cart[0].unit_price_cents)).toBe(1999);
    } finally {
      await t.dataSource.query(`UPDATE product SET price_cents = 1250 WHERE id = ?`, [LAB.products.kit]);
    }
  });

  it("add_form of a form already in the set adds nothing (and still counts as acted)", async () => {
    // Cy already has 502 in the set.
    await update(LAB.cy, { first_name: "Cyrus" });
    const states = await formStates(t.dataSource, LAB.groupId, LAB.cy);
    expect([...states.keys()]).toEqual([501, 502, 505]);
    expect((await effects(LAB.cy)).firings).toHaveLength(3);
  });
});
