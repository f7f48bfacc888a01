import { answerIsEmpty, decodeAnswer } from "../../src/domain/forms/field-value-codec";
import { createUser, updateUser } from "../../src/domain/users/users.service";
import type { UpdateUserCommand } from "../../src/domain/users/user-commands";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { formStates, storedValue, triggerEffects } from "../support/rows";

// Form submission and triggers (contract §4), called on the domain directly: no app, no HTTP.
// The Lab project (test/fixtures/lab-fixture.ts): form 501 "Profile" has the mandatory first_name
// (f_501_1) and three triggers (send_email to main_email, add_product 2 × Kit, add_form 502);
// form 504 "Consent" has a mandatory single choice and a send_email trigger to a fixed address.

let db: DomainDatabase;
beforeAll(async () => {
  db = await openDomainDatabase({ fixture: labFixture() });
});
afterAll(() => db.dispose());

let created = 0;
/** A new user of the Lab project with its initial forms, nothing submitted. */
async function newUser(options: { mainEmail?: string } = {}): Promise<number> {
  created += 1;
  const outcome = await createUser(db.context(), {
    groupId: LAB.groupId,
    cloginId: null,
    connectedTo: null,
    username: `domain${created}`,
    mainEmail: options.mainEmail ?? `domain${created}@lab.test`,
    values: {},
    submitForms: true,
    disableEmailSending: false,
  });
  return outcome.summary.cloginId;
}

const update = (cloginId: number, values: Record<string, unknown>, options: Partial<UpdateUserCommand> = {}) =>
  updateUser(db.context(), {
    groupId: LAB.groupId,
    cloginId,
    values,
    markFormsComplete: null,
    submitForms: true,
    disableEmailSending: false,
    ...options,
  });
const form = async (cloginId: number, formId: number) =>
  (await formStates(db.dataSource, LAB.groupId, cloginId)).get(formId);
const effects = (cloginId: number) => triggerEffects(db.dataSource, LAB.groupId, cloginId);

describe("a mandatory field holds a value (pure rule)", () => {
  it("text needs a non-blank text; a choice needs at least one chosen option", () => {
    expect(answerIsEmpty(decodeAnswer("text", "Ann"))).toBe(false);
    expect(answerIsEmpty(decodeAnswer("text", " \t "))).toBe(true);
    expect(answerIsEmpty(decodeAnswer("text", ""))).toBe(true);
    expect(answerIsEmpty(decodeAnswer("single_choice", '["Yes"]'))).toBe(false);
    expect(answerIsEmpty(decodeAnswer("multiple_choice", "[]"))).toBe(true);
    expect(answerIsEmpty(undefined)).toBe(true);
  });
});

describe("form submission (domain)", () => {
  it("a form whose mandatory field is empty is not completed, and its triggers do not act", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_2: "Able" });
    expect(await storedValue(db.dataSource, LAB.groupId, cloginId, "f_501_2")).toBe("Able");
    expect(await form(cloginId, 501)).toMatchObject({ completed: false, completedAt: null, submittedAt: null });
    expect(await effects(cloginId)).toEqual({ cart: [], history: [], outbox: [], firings: [] });
  });

  it("a blank value does not fill a mandatory field", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "   " });
    expect(await form(cloginId, 501)).toMatchObject({ completed: false });
  });

  it("once every mandatory field holds a value the form completes, submitted at the same time", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "Ann" });
    const state = (await form(cloginId, 501))!;
    expect(state.completed).toBe(true);
    expect(state.completedAt).not.toBeNull();
    expect(state.submittedAt).toEqual(state.completedAt);
  });

  it("sending the same values again submits nothing; a changed value submits again, but triggers stay done", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "Ann" });
    const first = (await form(cloginId, 501))!;
    const afterFirst = await effects(cloginId);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // stored times have whole seconds

    await update(cloginId, { f_501_1: "Ann" });
    expect(await form(cloginId, 501)).toEqual(first);
    expect(await effects(cloginId)).toEqual(afterFirst);

    await update(cloginId, { f_501_1: "Anne" });
    const again = (await form(cloginId, 501))!;
    expect(again.submittedAt).not.toEqual(first.submittedAt);
    expect(again.completedAt).toEqual(first.completedAt);
    expect(await effects(cloginId)).toEqual(afterFirst);
  });

  it("submitForms false saves the values without submitting or completing", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "Ann" }, { submitForms: false });
    expect(await storedValue(db.dataSource, LAB.groupId, cloginId, "f_501_1")).toBe("Ann");
    expect(await form(cloginId, 501)).toMatchObject({ completed: false, submittedAt: null });
    expect((await effects(cloginId)).firings).toEqual([]);
  });

  it("an unmatched answer does not fill a mandatory choice; a matched one does", async () => {
    const cloginId = await newUser();
    const refused = await update(cloginId, { f_504_1: "Perhaps" });
    expect(refused.notices).toContain('"f_504_1": "Perhaps" is not an answer of "I agree"; it was dropped.');
    expect(await form(cloginId, 504)).toMatchObject({ completed: false });
    await update(cloginId, { f_504_1: "yes" });
    expect(await storedValue(db.dataSource, LAB.groupId, cloginId, "f_504_1")).toBe('["Yes"]');
    expect(await form(cloginId, 504)).toMatchObject({ completed: true });
  });
});

describe("triggers (domain)", () => {
  it("add_product puts the product in the cart at its price with the trigger's quantity", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "Ann" });
    const { cart } = await effects(cloginId);
    expect(cart.map((line) => [Number(line.product_id), Number(line.quantity), Number(line.unit_price_cents)])).toEqual(
      [[LAB.products.kit, 2, 1250]],
    );
  });

  it("add_form adds the form to the user's form set, open", async () => {
    const cloginId = await newUser();
    expect(await form(cloginId, 502)).toBeUndefined();
    await update(cloginId, { f_501_1: "Ann" });
    expect(await form(cloginId, 502)).toMatchObject({ completed: false, completedAt: null, submittedAt: null });
  });

  it("send_email to main_email queues one email and records it in the history", async () => {
    const cloginId = await newUser({ mainEmail: "mail-me@lab.test" });
    await update(cloginId, { f_501_1: "Ann" });
    const { outbox, history } = await effects(cloginId);
    expect(outbox.map((row) => [row.to_addresses, row.subject, row.state])).toEqual([
      ["mail-me@lab.test", "Profile received", "queued"],
    ]);
    expect(history.map((row) => [row.to_addresses, row.subject, row.origin])).toEqual([
      ["mail-me@lab.test", "Profile received", "trigger"],
    ]);
  });

  it("each trigger acts once per registration, for every registration", async () => {
    const first = await newUser();
    const second = await newUser();
    for (const cloginId of [first, second, first]) {
      await update(cloginId, { f_501_1: `Name ${cloginId}` });
      await update(cloginId, { f_501_1: `Other ${cloginId}` });
    }
    for (const cloginId of [first, second]) {
      const { cart, outbox, firings } = await effects(cloginId);
      expect(cart).toHaveLength(1);
      expect(outbox).toHaveLength(1);
      expect(firings).toHaveLength(3);
    }
  });

  it("disable_email_sending: send_email does not act and stays unfired, so a later submission sends", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_504_1: "Yes" }, { disableEmailSending: true });
    expect(await form(cloginId, 504)).toMatchObject({ completed: true });
    expect(await effects(cloginId)).toEqual({ cart: [], history: [], outbox: [], firings: [] });

    await update(cloginId, { f_504_1: "No" });
    const { outbox, firings } = await effects(cloginId);
    expect(outbox.map((row) => [row.to_addresses, row.subject])).toEqual([["office@lab.test", "Consent given"]]);
    expect(firings).toHaveLength(1);
  });

  it("disable_email_sending leaves the other triggers acting", async () => {
    const cloginId = await newUser();
    await update(cloginId, { f_501_1: "Ann" }, { disableEmailSending: true });
    const { cart, outbox, firings } = await effects(cloginId);
    expect(cart).toHaveLength(1);
    expect(outbox).toEqual([]);
    expect(firings).toHaveLength(2);
    expect(await form(cloginId, 502)).toBeDefined();
  });

  it("send_email to main_email without a main email does not send and says why", async () => {
    const outcome = await update(LAB.bob, { f_501_1: "Bob" });
    expect(outcome.notices).toContain(`The email trigger of form 501 did not send: user ${LAB.bob} has no main email.`);
    expect((await effects(LAB.bob)).outbox).toEqual([]);
  });
});
