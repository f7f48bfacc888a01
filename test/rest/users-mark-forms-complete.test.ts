import { inTransaction } from "../../src/domain/transaction";
import { updateUser } from "../../src/domain/users/users.service";
import { startTestApp, type TestApp } from "../support/test-app";
import { expectLegacyError } from "../support/legacy-error";
import { expectUserEnvelope } from "./users-support";
import { formStates, rowsOf, uidOf } from "../support/rows";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { watchTables } from "../support/tables";

// update with mark_forms_complete: contract §5 (ids, states, response).

let t: TestApp;
beforeAll(async () => {
  // Each test uses its own user (form 501 open, no values, a main email) so their order does not matter.
  t = await startTestApp({ fixture: labFixtureWithUsers(720000, 12, "m") });
});
afterAll(() => t.close());

const user = (i: number) => 720000 + i;
const mark = (cloginId: number, selection: unknown, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", {
    action: "update",
    group_id: LAB.groupId,
    clogin_id: cloginId,
    mark_forms_complete: selection,
    ...extra,
  });

describe("mark_forms_complete: response (contract §5)", () => {
  it("only mark_forms_complete: msg 'Forms marked complete.', marked_complete as id strings, skipped, notices, user_info, meta_info", async () => {
    const res = await mark(user(0), [505]);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      "success",
      "msg",
      "system_action",
      "marked_complete",
      "skipped",
      "notices",
      "user_info",
      "meta_info",
    ]);
    expect(res.body.success).toBe(true);
    expect(res.body.msg).toBe("Forms marked complete.");
    expect(res.body.system_action).toEqual(["user_updated"]);
    expect(res.body.marked_complete).toEqual(["505"]);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.notices).toEqual([]);
    expectUserEnvelope(res.body, { cloginId: user(0), groupId: LAB.groupId });
    expect(res.body.meta_info.completed_forms).toBe("1");
  });

  it("contract §4, §5: doc omitted with mark_forms_complete is valid; an empty doc counts as no values", async () => {
    const res = await mark(user(1), [505], { doc: {} });
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe("Forms marked complete.");
  });

  it("with doc values: msg 'Information updated'", async () => {
    const res = await mark(user(2), [505], { doc: { f_505_1: "More" } });
    expect(res.body.msg).toBe("Information updated");
    expect(res.body.marked_complete).toEqual(["505"]);
  });

  it("an empty array marks nothing and succeeds", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await mark(user(3), []);
    expect([res.status, res.body.marked_complete, res.body.skipped]).toEqual([200, [], []]);
    await tables.expectNothingWritten();
  });
});

describe("mark_forms_complete: ids (contract §5)", () => {
  it("contract §5: ids may be integers or digit strings, and duplicates are collapsed", async () => {
    const res = await mark(user(4), ["505", 505, 504, "0504"]);
    expect(res.body.marked_complete).toEqual(["505", "504"]);
    expect(res.body.skipped).toEqual([]);
  });

  it("contract §5: ids that are not forms of this user are skipped with a reason, form_id as sent, as a string, in the order sent", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await mark(user(5), [401, 999999, 502, "abc", null, { id: 1 }, 1.5, -3, 401]);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.marked_complete).toEqual([]);
    expect(res.body.skipped).toEqual([
      { form_id: "401", reason: `Form 401 is not a form of project ${LAB.groupId}.` },
      { form_id: "999999", reason: `Form 999999 is not a form of project ${LAB.groupId}.` },
      { form_id: "502", reason: `Form 502 is not in the form set of user ${user(5)}.` },
      { form_id: "abc", reason: '"abc" is not a form id.' },
      { form_id: "null", reason: '"null" is not a form id.' },
      { form_id: '{"id":1}', reason: '"{\\"id\\":1}" is not a form id.' },
      { form_id: "1.5", reason: '"1.5" is not a form id.' },
      { form_id: "-3", reason: '"-3" is not a form id.' },
    ]);
    for (const entry of res.body.skipped) expect(Object.keys(entry)).toEqual(["form_id", "reason"]);
    await tables.expectNothingWritten();
  });

  it("contract §5: skipped ids are not a failure; the forms that belong to the user are still marked", async () => {
    const res = await mark(user(6), [505, 999999]);
    expect(res.body.marked_complete).toEqual(["505"]);
    expect(res.body.skipped).toEqual([
      { form_id: "999999", reason: `Form 999999 is not a form of project ${LAB.groupId}.` },
    ]);
    expect((await formStates(t.dataSource, LAB.groupId, user(6))).get(505)).toMatchObject({ completed: true });
  });

  it('contract §5: "all" marks every form in the user\'s current form set, in form order', async () => {
    const res = await mark(user(7), "all");
    expect(res.body.marked_complete).toEqual(["501", "503", "504", "505"]);
    const states = await formStates(t.dataSource, LAB.groupId, user(7));
    expect([501, 503, 504, 505].map((id) => states.get(id)!.completed)).toEqual([true, true, true, true]);
    // Submitting 501 ran its add_form trigger: 502 joined the set after "all" was read, not complete.
    expect(states.get(502)).toMatchObject({ completed: false });
  });

  it('a value that is neither "all" nor an array is a 400 naming mark_forms_complete', async () => {
    for (const selection of ["ALL", 505, { all: true }]) {
      expectLegacyError(await mark(user(7), selection), 400, "VALIDATION_FAILED", {
        errors: [{ path: "mark_forms_complete", message: /array of form ids or the string "all"/ }],
      });
    }
  });
});

describe("mark_forms_complete: states (contract §5)", () => {
  it("contract §5: empty mandatory fields do not block; one notice per such form names the form and its first empty mandatory field, in form order", async () => {
    const res = await mark(user(8), [504, 501, 505]);
    expect(res.body.marked_complete).toEqual(["504", "501", "505"]);
    expect(res.body.notices).toEqual([
      "Form 501 (Profile) was marked complete with empty mandatory fields; the first is f_501_1 (First name).",
      "Form 504 (Consent) was marked complete with empty mandatory fields; the first is f_504_1 (I agree).",
    ]);
    const states = await formStates(t.dataSource, LAB.groupId, user(8));
    expect(states.get(501)!.completed && states.get(504)!.completed).toBe(true);
    expect(res.body.meta_info.completed_forms).toBe("3");
  });

  it("contract §5: an already complete form is listed again and nothing changes; the repeated call returns the same answer", async () => {
    const first = await mark(user(9), [504, 505]);
    const statesBefore = await formStates(t.dataSource, LAB.groupId, user(9));
    const tables = await watchTables(t.dataSource);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await mark(user(9), [504, 505]);
    await tables.expectNothingWritten();
    expect(await formStates(t.dataSource, LAB.groupId, user(9))).toEqual(statesBefore);
    const { meta_info: _m1, ...firstRest } = first.body;
    const { meta_info: _m2, ...secondRest } = second.body;
    expect(secondRest).toEqual(firstRest);
    expect(second.body.meta_info).toEqual(first.body.meta_info);
  });

  it("contract §5: newly completed forms are submitted and their triggers fire (form 504 sends its email)", async () => {
    await mark(user(10), [504]);
    const uid = await uidOf(t.dataSource, LAB.groupId, user(10));
    expect((await rowsOf(t.dataSource, "outbox_email", uid)).map((row) => row.to_addresses)).toEqual([
      "office@lab.test",
    ]);
    const state = (await formStates(t.dataSource, LAB.groupId, user(10))).get(504)!;
    expect(state.submittedAt).toEqual(state.completedAt);
  });

  it("contract §5: with submit_forms false the forms are marked complete but not submitted (no triggers)", async () => {
    const res = await mark(user(11), [504, 501], { submit_forms: false });
    expect(res.body.marked_complete).toEqual(["504", "501"]);
    const uid = await uidOf(t.dataSource, LAB.groupId, user(11));
    const states = await formStates(t.dataSource, LAB.groupId, user(11));
    expect(states.get(504)).toMatchObject({ completed: true, submittedAt: null });
    expect(await rowsOf(t.dataSource, "trigger_firing", uid)).toEqual([]);
    // Already complete now: a later call does not submit them either (no second submission).
    await mark(user(11), [504, 501]);
    expect(await rowsOf(t.dataSource, "trigger_firing", uid)).toEqual([]);
  });

  it('contract §5: values are saved first, then forms are marked; "all" is read after the values (it includes the form a trigger added)', async () => {
    const res = await mark(LAB.dee, "all", { doc: { first_name: "Deedee" } });
    expect(res.body.msg).toBe("Information updated");
    expect(res.body.marked_complete).toEqual(["501", "502", "503", "504", "505"]);
    expect(res.body.notices).toEqual([
      "Form 502 (Medical) was marked complete with empty mandatory fields; the first is f_502_1 (Allergies).",
      "Form 504 (Consent) was marked complete with empty mandatory fields; the first is f_504_1 (I agree).",
    ]);
    // 501 was completed by the value's submission, so its completion time is the same as 502's marking.
    const states = await formStates(t.dataSource, LAB.groupId, LAB.dee);
    expect(states.get(501)!.completedAt).toEqual(states.get(502)!.completedAt);
  });

  it("doc notices come before the marking notices", async () => {
    const res = await mark(LAB.ann, [504], { doc: { nope: 1 } });
    expect(res.body.notices).toEqual([
      '"nope" is not a field of project 100909080; it was not written.',
      "Form 504 (Consent) was marked complete with empty mandatory fields; the first is f_504_1 (I agree).",
    ]);
  });
});

describe("mark_forms_complete: failures write nothing (contract §3, §4)", () => {
  it("a user not in the project (seed §7 case 1): accepted, nothing marked, every id sent skipped, nothing written", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: 102670540,
      doc: { f_505_1: "x" },
      mark_forms_complete: [501, "501", "504", 999, "abc"],
    });
    expect(res.status).toBe(200);
    const nobody = `user 102670540 is not registered in project ${LAB.groupId}`;
    expect(res.body).toEqual({
      success: true,
      msg: "Information updated",
      system_action: [],
      marked_complete: [],
      skipped: [
        { form_id: "501", reason: `Form 501 was not marked complete: ${nobody}.` },
        { form_id: "504", reason: `Form 504 was not marked complete: ${nobody}.` },
        { form_id: "999", reason: `Form 999 was not marked complete: ${nobody}.` },
        { form_id: "abc", reason: '"abc" is not a form id.' },
      ],
      notices: [`User 102670540 is not registered in project ${LAB.groupId}; nothing was written.`],
      user_info: { clogin_id: "102670540", group_id: String(LAB.groupId), connected_to: "102670540" },
      meta_info: null,
    });
    const all = await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: 102670540,
      mark_forms_complete: "all",
    });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      msg: "Forms marked complete.",
      marked_complete: [],
      skipped: [],
      meta_info: null,
    });
    await tables.expectNothingWritten();
  });

  it("values and marks are one transaction: a failure after both rolls every write back", async () => {
    const tables = await watchTables(t.dataSource);
    const ctx = t.context();
    await expect(
      inTransaction(ctx, "test.rolled_back", async (tx) => {
        await updateUser(tx, {
          groupId: LAB.groupId,
          cloginId: LAB.bob,
          values: { first_name: "Rolled", f_505_1: "back" },
          markFormsComplete: "all",
          submitForms: true,
          disableEmailSending: false,
        });
        throw new Error("fail after the writes");
      }),
    ).rejects.toThrow("fail after the writes");
    await tables.expectNothingWritten();
  });

  it("contract §4: mark_forms_complete with create or add_email is a 400 naming the member", async () => {
    const tables = await watchTables(t.dataSource);
    const create = await postRest(t.app, "users", {
      action: "create",
      group_id: LAB.groupId,
      clogin_id: false,
      doc: { main_email: "z@lab.test" },
      mark_forms_complete: "all",
    });
    expectLegacyError(create, 400, "VALIDATION_FAILED", {
      errors: [{ path: "mark_forms_complete", message: /only with action update/ }],
    });
    const addEmail = await postRest(t.app, "users", {
      action: "add_email",
      group_id: LAB.groupId,
      clogin_id: LAB.ann,
      doc: { email_list: { from: "a@lab.test", to: "b@lab.test", subject: "s", body: "b" } },
      mark_forms_complete: [501],
    });
    expectLegacyError(addEmail, 400, "VALIDATION_FAILED", {
      errors: [{ path: "mark_forms_complete", message: /only with action update/ }],
    });
    await tables.expectNothingWritten();
  });
});
