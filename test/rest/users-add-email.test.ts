import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { expectLegacyError } from "../support/legacy-error";
import { expectUserEnvelope } from "./users-support";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { rowsOf, uidOf } from "../support/rows";
import { watchTables } from "../support/tables";

// users add_email: contract §7.2.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixture() });
});
afterAll(() => t.close());

const email = (overrides: Record<string, unknown> = {}) => ({
  from: "venue@lab.test",
  to: "ann@lab.test",
  subject: "Booking confirmed",
  body: "<p>See you</p>",
  ...overrides,
});
const addEmail = (emailList: unknown, cloginId: number = LAB.ann, groupId: number = LAB.groupId) =>
  postRest(t.app, "users", {
    action: "add_email",
    group_id: groupId,
    clogin_id: cloginId,
    doc: { email_list: emailList },
  });
const history = async (cloginId: number = LAB.ann) =>
  rowsOf(t.dataSource, "email_record", await uidOf(t.dataSource, LAB.groupId, cloginId));

describe("add_email: response and records (contract §7.2)", () => {
  it("one email object: msg 'Emails added successfully', success true, user_info, meta_info; recorded with origin api; nothing sent", async () => {
    const before = (await history(LAB.dee)).length;
    const res = await addEmail(
      email({ to: "dee@lab.test", cc: "boss@lab.test, office@lab.test", bcc: "audit@lab.test" }),
      LAB.dee,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["success", "msg", "user_info", "meta_info"]);
    expect(res.body.success).toBe(true);
    expect(res.body.msg).toBe("Emails added successfully");
    expectUserEnvelope(res.body, { cloginId: LAB.dee, groupId: LAB.groupId });
    const rows = await history(LAB.dee);
    expect(rows).toHaveLength(before + 1);
    expect(rows[rows.length - 1]).toMatchObject({
      from_address: "venue@lab.test",
      to_addresses: "dee@lab.test",
      cc_addresses: "boss@lab.test, office@lab.test",
      bcc_addresses: "audit@lab.test",
      subject: "Booking confirmed",
      body: "<p>See you</p>",
      admin_id: null,
      origin: "api",
    });
    expect(await rowsOf(t.dataSource, "outbox_email", await uidOf(t.dataSource, LAB.groupId, LAB.dee))).toEqual([]);
  });

  it("an array of emails records each of them, in order", async () => {
    const before = (await history()).length;
    const res = await addEmail([email({ subject: "One" }), email({ subject: "Two", to: "a@lab.test,b@lab.test" })]);
    expect(res.status).toBe(200);
    expect((await history()).slice(before).map((row) => row.subject)).toEqual(["One", "Two"]);
  });

  it("contract §7: 100 emails are accepted, 101 and 0 are a 400 naming doc.email_list", async () => {
    const before = (await history(LAB.cy)).length;
    expect(
      (
        await addEmail(
          Array.from({ length: 100 }, (_, i) => email({ subject: `S${i}` })),
          LAB.cy,
        )
      ).status,
    ).toBe(200);
    expect((await history(LAB.cy)).length).toBe(before + 100);
    const tables = await watchTables(t.dataSource);
    expectLegacyError(await addEmail(Array.from({ length: 101 }, () => email())), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.email_list", message: "must hold at most 100 emails" }],
    });
    expectLegacyError(await addEmail([]), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.email_list", message: "must hold at least one email" }],
    });
    await tables.expectNothingWritten();
  });
});

describe("add_email: validation, all or nothing (contract §7.2)", () => {
  it("from, to, subject and body are required: a 400 naming each missing member", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await addEmail([{ cc: "x@lab.test" }]);
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: ["from", "to", "subject", "body"].map((member) => ({
        path: `doc.email_list[0].${member}`,
        message: "is required",
      })),
    });
    await tables.expectNothingWritten();
  });

  it("to, cc and bcc are comma-separated lists of valid addresses; one bad entry fails the whole call", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await addEmail([
      email(),
      email({ to: "ok@lab.test, nope" }),
      email({ cc: "fine@lab.test,,also@lab.test" }),
      email({ bcc: "x@y" }),
      email({ from: "not an address" }),
    ]);
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      msg: 'doc.email_list[1].to holds an invalid address: "nope" (and 3 more problems, see errors).',
      errors: [
        { path: "doc.email_list[1].to", message: 'holds an invalid address: "nope"' },
        { path: "doc.email_list[2].cc", message: 'holds an invalid address: ""' },
        { path: "doc.email_list[3].bcc", message: 'holds an invalid address: "x@y"' },
        {
          path: "doc.email_list[4].from",
          message: 'is not a valid email address: "not an address"',
        },
      ],
    });
    await tables.expectNothingWritten();
  });

  it("empty to or subject are refused; an empty body is accepted", async () => {
    const res = await addEmail([email({ to: " ", subject: "" })]);
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.email_list[0].to" }, { path: "doc.email_list[0].subject" }],
    });
    expect((await addEmail([email({ body: "" })])).status).toBe(200);
  });

  it("members of the wrong type are a 400 naming them", async () => {
    const res = await addEmail([email({ to: ["a@lab.test"], cc: 5, admin_id: "x" })]);
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "doc.email_list[0].to", message: 'must be a string, got ["a@lab.test"]' },
        { path: "doc.email_list[0].cc", message: "must be a string (comma-separated addresses)" },
        { path: "doc.email_list[0].admin_id", message: /integer or a string of digits/ },
      ],
    });
  });

  it("doc and doc.email_list are required", async () => {
    expectLegacyError(
      await postRest(t.app, "users", { action: "add_email", group_id: LAB.groupId, clogin_id: LAB.ann }),
      400,
      "VALIDATION_FAILED",
      { errors: [{ path: "doc" }] },
    );
    expectLegacyError(
      await postRest(t.app, "users", { action: "add_email", group_id: LAB.groupId, clogin_id: LAB.ann, doc: {} }),
      400,
      "VALIDATION_FAILED",
      {
        errors: [{ path: "doc.email_list", message: "is required" }],
      },
    );
    expectLegacyError(await addEmail("venue@lab.test"), 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.email_list", message: /email object/ }],
    });
  });

  it("a user not in the project is 404 USER_NOT_FOUND; a group of another organization is 403; nothing recorded", async () => {
    const tables = await watchTables(t.dataSource);
    expectLegacyError(await addEmail(email(), MAPLE.bill), 404, "USER_NOT_FOUND", {
      msg: `User ${MAPLE.bill} is not registered in project ${LAB.groupId}.`,
    });
    expectLegacyError(await addEmail(email(), 300000001, OTHER.groupId), 403, "FORBIDDEN", {
      msg: `group_id ${OTHER.groupId} is not a project of your organization`,
    });
    await tables.expectNothingWritten();
  });
});

describe("add_email: admin_id (contract §7.2)", () => {
  it("an owner (every project) and a staff admin with access to the project may be the sender; admin_id may be a digit string", async () => {
    const before = (await history()).length;
    const res = await addEmail([email({ admin_id: LAB.admins.owner }), email({ admin_id: String(LAB.admins.staff) })]);
    expect(res.status).toBe(200);
    expect((await history()).slice(before).map((row) => Number(row.admin_id))).toEqual([
      LAB.admins.owner,
      LAB.admins.staff,
    ]);
  });

  it("an admin without access to the project, a viewer, an admin of another organization or an unknown admin: 403 FORBIDDEN, nothing recorded", async () => {
    const tables = await watchTables(t.dataSource);
    const res = await addEmail([
      email({ admin_id: LAB.admins.owner }),
      email({ admin_id: LAB.admins.managerElsewhere }),
      email({ admin_id: LAB.admins.viewer }),
      email({ admin_id: 601 }),
      email({ admin_id: 999 }),
    ]);
    expectLegacyError(res, 403, "FORBIDDEN", {
      msg: `doc.email_list[1].admin_id names ${LAB.admins.managerElsewhere}, who has no access to project ${LAB.groupId} (and 3 more problems, see errors).`,
      errors: [
        {
          path: "doc.email_list[1].admin_id",
          message: `names ${LAB.admins.managerElsewhere}, who has no access to project ${LAB.groupId}`,
        },
        {
          path: "doc.email_list[2].admin_id",
          message: `names ${LAB.admins.viewer}, a viewer, who may not send emails`,
        },
        { path: "doc.email_list[3].admin_id", message: "names 601, who is not an admin of your organization" },
        { path: "doc.email_list[4].admin_id", message: "names 999, who is not an admin of your organization" },
      ],
    });
    await tables.expectNothingWritten();
  });

  it("the demo manager with access to the demo project may send there", async () => {
    const res = await postRest(t.app, "users", {
      action: "add_email",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
      doc: { email_list: email({ to: "miles@maple.test", admin_id: 501 }) },
    });
    expect(res.status).toBe(200);
  });
});

describe("whatever add_email accepts fits what it stores (issue 20, found by fuzzing)", () => {
  it("a 65,535-byte subject and address list that JSON escapes to twice their size are recorded whole; the event carries them cut", async () => {
    // 32,767 quotes: 65,534 bytes once JSON-escaped, which with `to` outgrew the event's TEXT column.
    const subject = '"'.repeat(32_767) + "\u0001".repeat(10_000);
    const to = Array(5_000)
      .fill("ann@lab.test")
      .join(",")
      .slice(0, 65_000)
      .replace(/,[^,]*$/, "");
    expect(Buffer.byteLength(subject)).toBeLessThanOrEqual(65_535);
    const res = await addEmail(email({ subject, to }));
    expect(res.status).toBe(200);
    const rows = await history();
    expect(rows.at(-1)).toMatchObject({ subject, to_addresses: to });
    const [event] = await t.dataSource.query(
      "SELECT data FROM event WHERE type = 'email.recorded' ORDER BY id DESC LIMIT 1",
    );
    const data = JSON.parse(event.data);
    expect(data.subject).toBe('"'.repeat(999) + "…");
    expect(data.to).toBe(to.slice(0, 999) + "…");
  });
});
