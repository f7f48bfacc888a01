import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { expectLegacyError } from "../support/legacy-error";
import { expectUserEnvelope } from "./users-support";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { watchTables } from "../support/tables";
import { storedValue } from "../support/rows";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixture() });
});
afterAll(() => t.close());

const update = (cloginId: number, doc: unknown, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", { action: "update", group_id: LAB.groupId, clogin_id: cloginId, doc, ...extra });
const person = async (id: number) => (await t.dataSource.query(`SELECT * FROM person WHERE id = ?`, [id]))[0];

describe("users update: response (contract §4)", () => {
  it("a field update answers success true, msg 'User updated.', system_action ['user_updated'], user_info and meta_info, key by key", async () => {
    const res = await update(LAB.bob, { f_501_3: "41" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Object.keys(res.body)).toEqual(["success", "msg", "system_action", "user_info", "meta_info"]);
    expect(res.body.success).toBe(true);
    expect(res.body.msg).toBe("User updated.");
    expect(res.body.system_action).toEqual(["user_updated"]);
    expectUserEnvelope(res.body, { cloginId: LAB.bob, groupId: LAB.groupId });
    expect(res.body.meta_info.u_name).toBe("Bob");
  });

  it("adds a notices array (strings) only when something was not written", async () => {
    const res = await update(LAB.bob, { f_501_3: "42", nope: "x" });
    expect(Object.keys(res.body)).toEqual(["success", "msg", "system_action", "notices", "user_info", "meta_info"]);
    expect(res.body.notices).toEqual(['"nope" is not a field of project 100909080; it was not written.']);
  });

  it("family systems: a child's user_info.connected_to and meta_info.connected_to are its parent's clogin_id", async () => {
    const res = await postRest(t.app, "users", {
      action: "update",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.childKind,
      connected_to: MAPLE.miles,
      doc: { f_301_3: ["S"] },
    });
    expect(res.status).toBe(200);
    expectUserEnvelope(res.body, { cloginId: MAPLE.childKind, groupId: MAPLE.groupId, connectedTo: MAPLE.miles });
  });
});

describe("users update: doc keys and values (contract §4)", () => {
  it("contract §4: keys may be field identifiers or mapped names; both are written", async () => {
    const res = await update(LAB.ann, { f_501_3: "30", contact_email: "ann.work@lab.test" });
    expect(res.body.success).toBe(true);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_3")).toBe("30");
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_4")).toBe("ann.work@lab.test");
  });

  it("contract §4: an integer value is accepted and stored as its text", async () => {
    await update(LAB.ann, { f_501_3: 31 });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_3")).toBe("31");
  });

  it("contract §4: a field mapped to first_name / last_name / org_name also updates the person, so u_name follows", async () => {
    const res = await update(LAB.bob, { first_name: "Robert", f_501_2: "Brown", org_name: "Brown & Co" });
    expect(res.body.meta_info.u_name).toBe("Robert Brown");
    expect(await person(LAB.bob)).toMatchObject({ first_name: "Robert", last_name: "Brown", org_name: "Brown & Co" });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.bob, "f_501_1")).toBe("Robert");
  });

  it("contract §4: a key starting with _ is a system field: not written, and a notice says so", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await update(LAB.ann, { _usercart: true, _submit: "x" });
    expect(res.body.success).toBe(true);
    expect(res.body.notices).toEqual([
      '"_usercart" is a system field and cannot be updated; it was not written.',
      '"_submit" is a system field and cannot be updated; it was not written.',
    ]);
    await tables.expectNothingWritten();
  });

  it("contract §4: a key that names the same field as an earlier one (id and mapped name) is not written twice", async () => {
    const res = await update(LAB.dee, { f_501_4: "first@lab.test", contact_email: "second@lab.test" });
    expect(res.body.notices).toEqual([
      '"contact_email" names the same field as "f_501_4" (f_501_4); only "f_501_4" was written.',
    ]);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_4")).toBe("first@lab.test");
  });

  it("an empty string clears a text field", async () => {
    await update(LAB.bob, { f_501_6: "+1 555 010 2030" });
    await update(LAB.bob, { f_501_6: "" });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.bob, "f_501_6")).toBe("");
  });
});

describe("users update: the three 'changes nothing' cases of the original interface (contract §4)", () => {
  it("case 1 (seed §7): someone not registered in the project is accepted, nothing is written, a notice says so", async () => {
    const tables = await watchTables(t.dataSource);
    // A person of the organization registered elsewhere, no person at all, another organization's person.
    for (const cloginId of [MAPLE.bill, 999999999, 300000001]) {
      const res = await update(cloginId, { f_501_3: "1", first_name: "Nobody" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        msg: "User updated.",
        system_action: [],
        notices: [`User ${cloginId} is not registered in project ${LAB.groupId}; nothing was written.`],
        user_info: { clogin_id: String(cloginId), group_id: String(LAB.groupId), connected_to: String(cloginId) },
        meta_info: null,
      });
    }
    // Ids as digit strings, with submit_forms and a connected_to: user_info echoes what was sent, as strings.
    const res = await postRest(t.app, "users", {
      action: "update",
      group_id: String(LAB.groupId),
      clogin_id: "999999998",
      connected_to: LAB.ann,
      submit_forms: false,
      doc: { f_501_3: "2" },
    });
    expect(res.status).toBe(200);
    expect(res.body.user_info).toEqual({
      clogin_id: "999999998",
      group_id: String(LAB.groupId),
      connected_to: String(LAB.ann),
    });
    expect(res.body.meta_info).toBeNull();
    await tables.expectNothingWritten();
  });

  it("case 1 keeps the checks before it: members (400), the project's ownership (403)", async () => {
    const tables = await watchTables(t.dataSource);
    expectLegacyError(await update(999999999, undefined), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc", message: "is required unless forms are marked complete" }],
    });
    const foreign = await postRest(t.app, "users", {
      action: "update",
      group_id: OTHER.groupId,
      clogin_id: 999999999,
      doc: { f_501_3: "1" },
    });
    expectLegacyError(foreign, 403, "FORBIDDEN");
    await tables.expectNothingWritten();
  });

  it("case 1 is update's alone: add_email, get_info, login, set_status and add_product keep 404 USER_NOT_FOUND", async () => {
    const tables = await watchTables(t.dataSource);
    const bodies = [
      { action: "add_email", doc: { email_list: { from: "a@lab.test", to: "b@lab.test", subject: "S", body: "B" } } },
      { action: "get_info" },
      { action: "login" },
      { action: "set_status", status_id: 0 },
      { action: "add_product", product_list: [{ p_id: LAB.products.kit, q: 1 }] },
    ];
    for (const body of bodies) {
      const res = await postRest(t.app, "users", { ...body, group_id: LAB.groupId, clogin_id: 999999999 });
      expectLegacyError(res, 404, "USER_NOT_FOUND", {
        msg: `User 999999999 is not registered in project ${LAB.groupId}.`,
      });
    }
    await tables.expectNothingWritten();
  });

  it("case 2: an unknown field is not written, the rest proceeds, success stays true, a notice names key and reason", async () => {
    const res = await update(LAB.ann, { f_999_1: "x", no_such_name: "y", f_501_3: "33" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.notices).toEqual([
      '"f_999_1" is not a field of project 100909080; it was not written.',
      '"no_such_name" is not a field of project 100909080; it was not written.',
    ]);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_3")).toBe("33");
  });

  it("case 2: an answer that a choice field does not have is not written and the field keeps its old value", async () => {
    const res = await update(LAB.cy, { f_501_8: ["Golf"] });
    expect(res.body.success).toBe(true);
    expect(res.body.notices).toEqual([
      '"f_501_8": "Golf" is not an answer of "Activities"; it was dropped.',
      '"f_501_8": none of the sent answers is an answer of "Activities"; the field keeps its value.',
    ]);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.cy, "f_501_8")).toBe('["Swimming"]');
  });

  it("case 3: a field of a form the user does not have is not written; a notice names key and reason", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await update(LAB.ann, { f_502_1: "Peanuts" });
    expect(res.body.success).toBe(true);
    expect(res.body.notices).toEqual([
      '"f_502_1" belongs to form 502, which user 700001 does not have; it was not written.',
    ]);
    await tables.expectNothingWritten();
  });

  it("a field of another project (even of the same organization) counts as unknown", async () => {
    const res = await update(LAB.ann, { f_301_1: "x", your_instrument: "Piano" });
    expect(res.body.notices).toEqual([
      '"f_301_1" is not a field of project 100909080; it was not written.',
      '"your_instrument" is not a field of project 100909080; it was not written.',
    ]);
  });
});

describe("users update: choice matching (contract §4)", () => {
  it("a string equal to an option value stores that option", async () => {
    await update(LAB.dee, { f_501_8: ["Swimming"] });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe('["Swimming"]');
  });

  it("the exact comparison comes first: 'archery' stores the option 'archery', not '<b>Archery</b>'", async () => {
    await update(LAB.dee, { f_501_8: ["archery"] });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe('["archery"]');
  });

  it("HTML-stripped, lower-cased match stores the option's own value (HTML stripped from both sides)", async () => {
    const res = await update(LAB.dee, { f_501_8: ["ARCHERY", "rock climbing", "<u>swimming</u>"] });
    expect(res.body.notices).toBeUndefined();
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe(
      '["Swimming","<b>Archery</b>","<i>Rock</i> Climbing"]',
    );
  });

  it("contract §4: unmatched strings are dropped with a notice, the matched ones are stored", async () => {
    const res = await update(LAB.dee, { f_501_8: ["Swimming", "Golf", "Chess"] });
    expect(res.body.notices).toEqual([
      '"f_501_8": "Golf" is not an answer of "Activities"; it was dropped.',
      '"f_501_8": "Chess" is not an answer of "Activities"; it was dropped.',
    ]);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe('["Swimming"]');
  });

  it("contract §4: a plain string for a choice field is an array of one (and matched the same way)", async () => {
    await update(LAB.dee, { f_501_7: "m" });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_7")).toBe('["M"]');
  });

  it("a single-choice field takes exactly one answer: two matching answers are not written (notice)", async () => {
    await update(LAB.dee, { f_501_7: ["S"] });
    const res = await update(LAB.dee, { f_501_7: ["S", "L"] });
    expect(res.body.notices).toEqual([
      '"f_501_7" is a single-choice field and takes exactly one answer, got 2; it was not written.',
    ]);
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_7")).toBe('["S"]');
  });

  it("the same answer sent twice is stored once", async () => {
    await update(LAB.dee, { f_501_8: ["Swimming", "swimming", "Swimming"] });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe('["Swimming"]');
  });

  it("an empty array clears a choice field", async () => {
    await update(LAB.dee, { f_501_8: ["Swimming"] });
    await update(LAB.dee, { f_501_8: [] });
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.dee, "f_501_8")).toBe("[]");
  });
});

describe("users update: per-type validation gives notices, not failures (our decision, README)", () => {
  const cases: [string, string, unknown, string][] = [
    ["number", "f_501_3", "forty", '"f_501_3": "forty" is not a number; it was not written.'],
    [
      "email",
      "f_501_4",
      "not-an-address",
      '"f_501_4": "not-an-address" is not a valid email address; it was not written.',
    ],
    [
      "date",
      "f_501_5",
      "2026-02-30",
      '"f_501_5": "2026-02-30" is not a date in the form YYYY-MM-DD; it was not written.',
    ],
    ["phone", "f_501_6", "call me", '"f_501_6": "call me" is not a phone number; it was not written.'],
    [
      "text (array sent)",
      "f_501_2",
      ["a", "b"],
      '"f_501_2" is a text field and takes one value, not an array; it was not written.',
    ],
    [
      "text (null sent)",
      "f_501_2",
      null,
      '"f_501_2" must be a string, a number or an array of strings; it was not written.',
    ],
    [
      "text (boolean sent)",
      "f_501_2",
      true,
      '"f_501_2" must be a string, a number or an array of strings; it was not written.',
    ],
    [
      "text (object sent)",
      "f_501_2",
      { a: 1 },
      '"f_501_2" must be a string, a number or an array of strings; it was not written.',
    ],
    [
      "choice (object in array)",
      "f_501_8",
      [{ a: 1 }],
      '"f_501_8" is a choice field and takes an array of strings; it was not written.',
    ],
  ];
  for (const [type, fieldId, value, notice] of cases) {
    it(`a ${type} field refuses ${JSON.stringify(value)}: notice, value not written, success true`, async () => {
      const tables = await watchTables(t.dataSource);
      const res = await update(LAB.ann, { [fieldId]: value });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.notices).toEqual([notice]);
      await tables.expectNothingWritten();
    });
  }

  it("valid values of each type are stored as sent", async () => {
    const res = await update(LAB.ann, {
      f_501_3: "-12.5",
      f_501_4: "a.b@lab.test",
      f_501_5: "2026-05-01",
      f_501_6: "+1 (555) 010-2030",
    });
    expect(res.body.notices).toBeUndefined();
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_5")).toBe("2026-05-01");
    expect(await storedValue(t.dataSource, LAB.groupId, LAB.ann, "f_501_6")).toBe("+1 (555) 010-2030");
  });

  it("a value over 65535 bytes (the TEXT column) is refused with a notice", async () => {
    const res = await update(LAB.ann, { f_501_2: "x".repeat(65536) });
    expect(res.body.notices).toEqual(['"f_501_2" is longer than 65535 bytes; it was not written.']);
  });

  it("a value for a mapped person field longer than the person column is refused with a notice", async () => {
    const res = await update(LAB.ann, { first_name: "y".repeat(101) });
    expect(res.body.notices).toEqual(['"first_name" is longer than 100 characters; it was not written.']);
    expect((await person(LAB.ann)).first_name).toBe("Ann");
  });
});

describe("users update: envelope (contract §1, §2, §4)", () => {
  it("contract §4: without doc and without mark_forms_complete the call is 400 VALIDATION_FAILED and writes nothing", async () => {
    const tables = await watchTables(t.dataSource);
    for (const body of [
      { action: "update", group_id: LAB.groupId, clogin_id: LAB.ann },
      { action: "update", group_id: LAB.groupId, clogin_id: LAB.ann, doc: null },
    ]) {
      expectLegacyError(await postRest(t.app, "users", body), 400, "VALIDATION_FAILED", {
        msg: "doc is required unless forms are marked complete.",
        errors: [{ path: "doc", message: "is required unless forms are marked complete" }],
      });
    }
    await tables.expectNothingWritten();
  });

  it("contract §1: clogin_id and group_id may be strings of digits", async () => {
    const res = await postRest(t.app, "users", {
      action: "update",
      group_id: String(LAB.groupId),
      clogin_id: String(LAB.ann),
      doc: { f_505_1: "str ids" },
    });
    expect(res.status).toBe(200);
    expect(res.body.user_info.clogin_id).toBe(String(LAB.ann));
  });

  it("contract §1: a clogin_id that is not an integer is a 400 naming the member", async () => {
    const res = await postRest(t.app, "users", { action: "update", group_id: LAB.groupId, clogin_id: "12a", doc: {} });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [{ path: "clogin_id", message: /integer or a string of digits/ }],
    });
  });

  it("contract §1: doc must be a JSON object", async () => {
    const res = await update(LAB.ann, "f_501_3=1");
    expectLegacyError(res, 400, "VALIDATION_FAILED", { errors: [{ path: "doc", message: "must be a JSON object" }] });
  });

  it("contract §1: submit_forms must be a boolean", async () => {
    const res = await update(LAB.ann, { f_501_3: "1" }, { submit_forms: "no" });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [{ path: "submit_forms", message: 'must be true or false (or 1 or 0), got "no"' }],
    });
  });

  it("contract §2: a group of another organization is 403 FORBIDDEN, the same as a group that does not exist", async () => {
    const tables = await watchTables(t.dataSource);
    for (const groupId of [OTHER.groupId, 123456789]) {
      const res = await postRest(t.app, "users", {
        action: "update",
        group_id: groupId,
        clogin_id: 300000001,
        doc: { f_901_1: "x" },
      });
      expectLegacyError(res, 403, "FORBIDDEN", { msg: `group_id ${groupId} is not a project of your organization` });
    }
    await tables.expectNothingWritten();
  });

  it("connected_to, when sent, must be the user's own connection: its parent for a child (our decision: else 400)", async () => {
    const ok = await postRest(t.app, "users", {
      action: "update",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.childKind,
      connected_to: String(MAPLE.miles),
      doc: { f_301_3: ["M"] },
    });
    expect(ok.status).toBe(200);
    const self = await update(LAB.ann, { f_505_1: "self" }, { connected_to: LAB.ann });
    expect(self.status).toBe(200);
    const tables = await watchTables(t.dataSource);
    const wrong = await postRest(t.app, "users", {
      action: "update",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.childKind,
      connected_to: MAPLE.bill,
      doc: { f_301_3: ["L"] },
    });
    expectLegacyError(wrong, 400, "VALIDATION_FAILED", {
      errors: [
        {
          path: "connected_to",
          message: `${MAPLE.bill} does not match user ${MAPLE.childKind}, whose connected_to is ${MAPLE.miles}`,
        },
      ],
    });
    await tables.expectNothingWritten();
  });

  it("a doc with more than 1000 members is 400 (bounded work per call)", async () => {
    const doc = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, "v"]));
    expectLegacyError(await update(LAB.ann, doc), 400, "VALIDATION_FAILED", { errors: [{ path: "doc" }] });
  });
});
