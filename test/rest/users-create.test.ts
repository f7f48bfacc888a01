import { verifyPassword } from "../../src/auth/secrets";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import {
  expectErrorBody,
  expectUserEnvelope,
  formStates,
  LAB,
  labFixture,
  postUsers,
  rowsOf,
  snapshotWrites,
  storedValue,
} from "./users-support";

// users create: seed §4.1, contract §1 (clogin_id on create), §7 (create), §8.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixture() });
});
afterAll(() => t.close());

const create = (doc: unknown, extra: Record<string, unknown> = {}) =>
  postUsers(t, { action: "create", group_id: LAB.groupId, clogin_id: false, doc, ...extra });
const personOf = async (id: number) => (await t.dataSource.query(`SELECT * FROM person WHERE id = ?`, [id]))[0];

describe("users create: response (seed §4.1, contract §8)", () => {
  it("answers HTTP 200 with msg 'User registered.', system_action ['user_registered'], success true, user_info and meta_info, key by key", async () => {
    const res = await create({
      username: "new1",
      password: "secret99",
      main_email: "new1@lab.test",
      first_name: "Nia",
      last_name: "New",
      org_name: "Org",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["success", "msg", "system_action", "user_info", "meta_info"]);
    expect(res.body.success).toBe(true);
    expect(res.body.msg).toBe("User registered.");
    expect(res.body.system_action).toEqual(["user_registered"]);
    const cloginId = Number(res.body.user_info.clogin_id);
    expect(Number.isSafeInteger(cloginId)).toBe(true);
    expectUserEnvelope(res.body, { cloginId, groupId: LAB.groupId });
    // first_name fills the mandatory f_501_1, so form 501 is submitted: its add_product trigger puts 2 × 12.50 in the cart.
    expect(res.body.meta_info).toMatchObject({
      u_name: "Nia New",
      status_id: "0",
      status_name: null,
      total_order: "25.00",
      star: "0",
      excluded: "0",
    });
  });
});

describe("users create: the person (contract §7)", () => {
  it("a new person: username defaults to main_email; the password is stored only as a scrypt hash", async () => {
    const res = await create({ password: "hunter22", main_email: "Default@Lab.test", first_name: "Dora" });
    const row = await personOf(Number(res.body.user_info.clogin_id));
    expect(row.username).toBe("Default@Lab.test");
    expect(row.main_email).toBe("Default@Lab.test");
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain("hunter22");
    expect(await verifyPassword("hunter22", row.password_hash)).toBe(true);
  });

  it("an explicit username is used as given", async () => {
    const res = await create({ username: "chosen_name", main_email: "chosen@lab.test" });
    expect((await personOf(Number(res.body.user_info.clogin_id))).username).toBe("chosen_name");
  });

  it("a new person without password is allowed (no hash stored; our decision)", async () => {
    const res = await create({ main_email: "nopass@lab.test" });
    expect(res.status).toBe(200);
    expect((await personOf(Number(res.body.user_info.clogin_id))).password_hash).toBeNull();
  });

  it("usernames are unique in the organization, case-insensitively: 409 CONFLICT, nothing written", async () => {
    const before = await snapshotWrites(t.dataSource);
    expectErrorBody(await create({ username: "ANN@lab.test", main_email: "x1@lab.test" }), 409, "CONFLICT", {
      msg: 'Username "ANN@lab.test" is already used in your organization.',
    });
    // the default username (main_email) clashes the same way, also with a user of another project of the organization
    expectErrorBody(await create({ main_email: "MILES@maple.test" }), 409, "CONFLICT", {
      msg: 'Username "MILES@maple.test" is already used in your organization.',
    });
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("a username of another organization does not clash", async () => {
    const res = await create({ main_email: "someone@other.test" });
    expect(res.status).toBe(200);
  });

  it("password shorter than 6 characters: 400 naming doc.password, nothing written", async () => {
    const before = await snapshotWrites(t.dataSource);
    const res = await create({ password: "12345", main_email: "short@lab.test" });
    expectErrorBody(res, 400, "VALIDATION_FAILED", {
      msg: "doc.password must have at least 6 characters.",
      errors: [{ path: "doc.password", message: "must have at least 6 characters" }],
    });
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("main_email must be a valid address, and a new person needs one: 400 naming doc.main_email", async () => {
    const before = await snapshotWrites(t.dataSource);
    expectErrorBody(await create({ main_email: "not-an-address", password: "secret1" }), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.main_email", message: 'is not a valid email address: "not-an-address"' }],
    });
    expectErrorBody(await create({ username: "nomail", password: "secret1" }), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.main_email", message: "is required for a new user" }],
    });
    expectErrorBody(await create({ main_email: "bad", password: "123" }), 400, "VALIDATION_FAILED", {
      msg: 'doc.main_email is not a valid email address: "bad" (and 1 more problem, see errors).',
      errors: [{ path: "doc.main_email" }, { path: "doc.password" }],
    });
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("person data longer than its column is a 400 naming the member", async () => {
    expectErrorBody(
      await create({ main_email: "long@lab.test", first_name: "n".repeat(101) }),
      400,
      "VALIDATION_FAILED",
      {
        errors: [{ path: "doc.first_name", message: "must have at most 100 characters" }],
      },
    );
  });

  it("person data must be strings: a 400 naming the member", async () => {
    expectErrorBody(await create({ main_email: "types@lab.test", password: 123456 }), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.password", message: "must be a string, got 123456" }],
    });
  });
});

describe("users create: clogin_id (contract §1, §8)", () => {
  it("clogin_id absent is a new person, like false", async () => {
    const res = await postUsers(t, { action: "create", group_id: LAB.groupId, doc: { main_email: "absent@lab.test" } });
    expect(res.status).toBe(200);
  });

  it("the id of a person of the organization registers that person in this project too (digit string accepted)", async () => {
    const before = (await t.dataSource.query(`SELECT COUNT(*) AS n FROM person`))[0].n;
    const res = await postUsers(t, {
      action: "create",
      group_id: LAB.groupId,
      clogin_id: String(MAPLE.miles),
      doc: {},
    });
    expect(res.status).toBe(200);
    expectUserEnvelope(res.body, { cloginId: MAPLE.miles, groupId: LAB.groupId });
    expect(res.body.meta_info.u_name).toBe("Miles Davis");
    expect((await t.dataSource.query(`SELECT COUNT(*) AS n FROM person`))[0].n).toEqual(before);
    expect([...(await formStates(t.dataSource, LAB.groupId, MAPLE.miles)).keys()]).toEqual([501, 503, 504, 505]);
  });

  it("an existing person keeps its login: username and password in doc are ignored with a notice", async () => {
    const res = await postUsers(t, {
      action: "create",
      group_id: LAB.groupId,
      clogin_id: MAPLE.bill,
      doc: { username: "takeover", password: "another1" },
    });
    expect(res.body.notices).toEqual([
      `username and password were ignored: user ${MAPLE.bill} already exists and keeps its login.`,
    ]);
    const row = await personOf(MAPLE.bill);
    expect(row.username).toBe("bill@maple.test");
    expect(await verifyPassword("secret2", row.password_hash)).toBe(true);
  });

  it("already registered in this project: 409 CONFLICT, nothing written", async () => {
    const before = await snapshotWrites(t.dataSource);
    const res = await postUsers(t, { action: "create", group_id: LAB.groupId, clogin_id: LAB.ann, doc: {} });
    expectErrorBody(res, 409, "CONFLICT", { msg: `User ${LAB.ann} is already registered in project ${LAB.groupId}.` });
    expect(res.body.clogin_id).toBe(String(LAB.ann));
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("contract §8: a clogin_id that is not a person of the caller's organization is 404 USER_NOT_FOUND", async () => {
    const before = await snapshotWrites(t.dataSource);
    for (const cloginId of [300000001, 999999999]) {
      const res = await postUsers(t, { action: "create", group_id: LAB.groupId, clogin_id: cloginId, doc: {} });
      expectErrorBody(res, 404, "USER_NOT_FOUND", { msg: `clogin_id ${cloginId} is not a user of your organization.` });
    }
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("contract §1: any other clogin_id (true, a word) is a 400 naming clogin_id", async () => {
    for (const cloginId of [true, "new", 1.5]) {
      expectErrorBody(
        await postUsers(t, {
          action: "create",
          group_id: LAB.groupId,
          clogin_id: cloginId,
          doc: { main_email: "c@lab.test" },
        }),
        400,
        "VALIDATION_FAILED",
        {
          errors: [{ path: "clogin_id", message: /must be false \(a new user\) or the id of a user/ }],
        },
      );
    }
  });
});

describe("users create: registration, forms and values (contract §7, §8)", () => {
  it("the new registration gets the project's initial forms for its level (an individual: level all and parent)", async () => {
    const res = await create({ main_email: "forms@lab.test" });
    const cloginId = Number(res.body.user_info.clogin_id);
    expect([...(await formStates(t.dataSource, LAB.groupId, cloginId)).keys()]).toEqual([501, 503, 504, 505]);
    expect(res.body.meta_info).toMatchObject({
      total_forms: "4",
      completed_forms: "0",
      total_user_forms: "3",
      total_user_mandatory_forms: "1",
    });
  });

  it("contract §8: create in a family project makes a parent: level all and parent forms, connected_to its own clogin_id", async () => {
    const res = await postUsers(t, {
      action: "create",
      group_id: LAB.familyGroupId,
      clogin_id: false,
      doc: { main_email: "parent@lab.test" },
    });
    const cloginId = Number(res.body.user_info.clogin_id);
    expectUserEnvelope(res.body, { cloginId, groupId: LAB.familyGroupId });
    expect([...(await formStates(t.dataSource, LAB.familyGroupId, cloginId)).keys()]).toEqual([601, 602]);
    const [registration] = await t.dataSource.query(
      `SELECT connected_to FROM registration WHERE project_id = ? AND person_id = ?`,
      [LAB.familyGroupId, cloginId],
    );
    expect(registration.connected_to).toBeNull();
  });

  it("connected_to on create is refused (children come from create_child; our decision): 400 naming connected_to, nothing written", async () => {
    const before = await snapshotWrites(t.dataSource);
    const res = await postUsers(t, {
      action: "create",
      group_id: LAB.familyGroupId,
      clogin_id: false,
      connected_to: 700005,
      doc: { main_email: "child@lab.test" },
    });
    expectErrorBody(res, 400, "VALIDATION_FAILED", {
      errors: [
        {
          path: "connected_to",
          message:
            "is not accepted by create, which registers a parent or an individual; children are created with create_child",
        },
      ],
    });
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("other doc keys are field values handled as in update: written, matched, or refused with a notice", async () => {
    const res = await create({
      main_email: "vals@lab.test",
      f_501_3: 12,
      f_501_8: ["archery", "Golf"],
      _usercart: true,
      nope: "x",
      f_502_1: "Peanuts",
    });
    expect(res.body.notices).toEqual([
      '"f_501_8": "Golf" is not an answer of "Activities"; it was dropped.',
      '"_usercart" is a system field and cannot be updated; it was not written.',
      '"nope" is not a field of project 100909080; it was not written.',
      `"f_502_1" belongs to form 502, which user ${res.body.user_info.clogin_id} does not have; it was not written.`,
    ]);
    const cloginId = Number(res.body.user_info.clogin_id);
    expect(await storedValue(t.dataSource, LAB.groupId, cloginId, "f_501_3")).toBe("12");
    expect(await storedValue(t.dataSource, LAB.groupId, cloginId, "f_501_8")).toBe('["archery"]');
    expect(Object.keys(res.body)).toEqual(["success", "msg", "system_action", "notices", "user_info", "meta_info"]);
  });

  it("first_name, last_name, org_name and main_email also fill the fields mapped to them; the submission fires the form's triggers", async () => {
    const res = await create({ main_email: "trig@lab.test", first_name: "Tess", last_name: "Trig" });
    const cloginId = Number(res.body.user_info.clogin_id);
    expect(await storedValue(t.dataSource, LAB.groupId, cloginId, "f_501_1")).toBe("Tess");
    expect(await storedValue(t.dataSource, LAB.groupId, cloginId, "f_501_10")).toBe("trig@lab.test");
    const states = await formStates(t.dataSource, LAB.groupId, cloginId);
    expect(states.get(501)).toMatchObject({ completed: true });
    expect(states.has(502)).toBe(true);
    const uid = Number(res.body.meta_info.uid);
    expect((await rowsOf(t.dataSource, "outbox_email", uid)).map((row) => row.to_addresses)).toEqual(["trig@lab.test"]);
    expect(res.body.meta_info).toMatchObject({
      u_name: "Tess Trig",
      total_order: "25.00",
      total_forms: "5",
      completed_forms: "1",
    });
  });

  it("a value in a field mapped to first_name (sent by identifier) sets the person's name too", async () => {
    const res = await create({ main_email: "byid@lab.test", f_501_1: "Ida" });
    expect(res.body.meta_info.u_name).toBe("Ida");
  });

  it("submit_forms false on create: values saved, no submission, no triggers", async () => {
    const res = await create({ main_email: "nosub@lab.test", first_name: "Nos" }, { submit_forms: false });
    const uid = Number(res.body.meta_info.uid);
    expect((await formStates(t.dataSource, LAB.groupId, Number(res.body.user_info.clogin_id))).get(501)).toMatchObject({
      completed: false,
    });
    expect(await rowsOf(t.dataSource, "trigger_firing", uid)).toEqual([]);
  });

  it("disable_email_sending on create: the product is added, no email is written", async () => {
    const res = await create({ main_email: "quiet@lab.test", first_name: "Quinn" }, { disable_email_sending: true });
    const uid = Number(res.body.meta_info.uid);
    expect(await rowsOf(t.dataSource, "outbox_email", uid)).toEqual([]);
    expect(await rowsOf(t.dataSource, "email_record", uid)).toEqual([]);
    expect(await rowsOf(t.dataSource, "cart_line", uid)).toHaveLength(1);
  });

  it("contract §2: a group of another organization is 403 FORBIDDEN, checked before the doc", async () => {
    const before = await snapshotWrites(t.dataSource);
    const res = await postUsers(t, {
      action: "create",
      group_id: OTHER.groupId,
      clogin_id: false,
      doc: { password: "1" },
    });
    expectErrorBody(res, 403, "FORBIDDEN", { msg: `group_id ${OTHER.groupId} is not a project of your organization` });
    expect(await snapshotWrites(t.dataSource)).toEqual(before);
  });

  it("doc may be omitted only with a clogin_id (a new person needs main_email)", async () => {
    expectErrorBody(
      await postUsers(t, { action: "create", group_id: LAB.groupId, clogin_id: false }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "doc.main_email" }] },
    );
  });
});

describe("users create: person keys and mapped fields outside the form set", () => {
  it("first_name sets the person even when the field mapped to it is in a form the new user does not get (no notice)", async () => {
    const project = await t.dataSource.query(`SELECT initial FROM form WHERE id = 501`);
    expect(project).toHaveLength(1);
    await t.dataSource.query(`UPDATE form SET initial = 0 WHERE id = 501`);
    try {
      const res = await create({ main_email: "outside@lab.test", first_name: "Olga" });
      expect(res.body.notices).toBeUndefined();
      expect(res.body.meta_info.u_name).toBe("Olga");
    } finally {
      await t.dataSource.query(`UPDATE form SET initial = 1 WHERE id = 501`);
    }
  });
});
