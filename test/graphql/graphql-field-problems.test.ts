import request from "supertest";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql } from "./graphql-client";

// Issue 24 §4: updateUser and updateMe answer `problems { field value reason message }`, one per
// sent value not written, next to `notices`. The domain decides each refusal once; the notices
// are the problems' messages, so REST (notices only) and GraphQL cannot tell different stories.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixture() });
});
afterAll(() => t.close());

interface Problem {
  field: string;
  value: string;
  reason: string;
  message: string;
}
interface Payload {
  notices: string[];
  problems: Problem[];
}

const UPDATE_USER = `mutation($input: UpdateUserInput!) {
  updateUser(input: $input) { notices problems { field value reason message } user { name } } }`;

const stored = async (cloginId: number, fieldId: string) =>
  (
    (await t.dataSource.query(
      "SELECT v.value FROM field_value v JOIN registration r ON r.uid = v.registration_id WHERE r.project_id = ? AND r.person_id = ? AND v.field_id = ?",
      [LAB.groupId, cloginId, fieldId],
    )) as { value: string }[]
  ).map((row) => row.value);

async function sessionOf(cloginId: number): Promise<string> {
  const loggedIn = await postRest(t.app, "users", {
    action: "login",
    group_id: LAB.groupId,
    clogin_id: cloginId,
    doc: {},
  });
  expect(loggedIn.status).toBe(200);
  const redeemed = await request(t.app)
    .post("/reg/api2/session/")
    .set("Content-Type", "application/json")
    .send({ user_token: loggedIn.body.user_token });
  expect(redeemed.status).toBe(200);
  return redeemed.body.session_token as string;
}

describe("updateUser problems", () => {
  // Cy has forms 501, 502 and 505 (not 504); every kind of refusal but NO_MATCHING_CHOICE, in one call.
  const values = {
    main_email: "bad",
    last_name: "L".repeat(101),
    f_501_3: "a".repeat(100),
    f_501_4: "nope",
    f_501_5: "2026-13-01",
    f_501_6: "abc",
    f_501_7: ["S", "M"],
    f_501_8: ["Swimming", "Golf"],
    f_501_2: ["a"],
    f_504_1: "Yes",
    nope: "x",
    _status: "1",
    first_name: "Cyan",
    f_501_1: "Cy2",
  };

  it("names each value not written by its key as sent, its value (capped) and a stable reason; notices are the messages", async () => {
    const res = await graphql<{ updateUser: Payload & { user: { name: string } } }>(t.app, UPDATE_USER, {
      input: { groupId: LAB.groupId, cloginId: LAB.cy, values, submitForms: false },
    });
    expect(res.errors).toBeUndefined();
    const payload = res.data!.updateUser;
    expect(payload.problems.map(({ field, value, reason }) => ({ field, value, reason }))).toEqual([
      // The person's own keys are read first (last_name, then main_email), as the notices always listed them.
      { field: "last_name", value: `${"L".repeat(59)}…`, reason: "TOO_LONG" },
      { field: "main_email", value: "bad", reason: "INVALID_EMAIL" },
      { field: "f_501_3", value: `${"a".repeat(59)}…`, reason: "NOT_A_NUMBER" },
      { field: "f_501_4", value: "nope", reason: "INVALID_EMAIL" },
      { field: "f_501_5", value: "2026-13-01", reason: "INVALID_DATE" },
      { field: "f_501_6", value: "abc", reason: "INVALID_PHONE" },
      { field: "f_501_7", value: '["S","M"]', reason: "TOO_MANY_CHOICES" },
      { field: "f_501_8", value: "Golf", reason: "UNKNOWN_CHOICE" },
      { field: "f_501_2", value: '["a"]', reason: "WRONG_TYPE" },
      { field: "f_504_1", value: "Yes", reason: "FORM_NOT_AVAILABLE" },
      { field: "nope", value: "x", reason: "UNKNOWN_FIELD" },
      { field: "_status", value: "1", reason: "SYSTEM_FIELD" },
      { field: "f_501_1", value: "Cy2", reason: "DUPLICATE_FIELD" },
    ]);
    expect(payload.notices).toEqual(payload.problems.map((problem) => problem.message));
    expect(payload.problems.every((problem) => problem.message.includes(problem.field))).toBe(true);
    // What was accepted was written; what was refused was not.
    expect(payload.user.name).toBe("Cyan");
    expect(await stored(LAB.cy, "f_501_8")).toEqual(['["Swimming"]']);
    expect(await stored(LAB.cy, "f_501_3")).toEqual([]);
    expect(await stored(LAB.cy, "f_504_1")).toEqual([]);
  });

  it("REST's notices for the same values are the same sentences (one decision, two presentations)", async () => {
    const viaGraphql = await graphql<{ updateUser: Payload }>(t.app, UPDATE_USER, {
      input: { groupId: LAB.groupId, cloginId: LAB.cy, values, submitForms: false },
    });
    const viaRest = await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: LAB.cy,
      submit_forms: false,
      doc: values,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.notices).toEqual(viaGraphql.data!.updateUser.notices);
    expect(viaRest.body).not.toHaveProperty("problems");
  });

  it("is empty when every value was written", async () => {
    const res = await graphql<{ updateUser: Payload }>(t.app, UPDATE_USER, {
      input: { groupId: LAB.groupId, cloginId: LAB.cy, values: { f_501_3: "12", f_501_7: "m" }, submitForms: false },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateUser).toMatchObject({ problems: [], notices: [] });
    expect(await stored(LAB.cy, "f_501_7")).toEqual(['["M"]']);
  });

  it("markFormsComplete answers the problems of its values too", async () => {
    const res = await graphql<{ markFormsComplete: Payload }>(
      t.app,
      `
        mutation ($input: MarkFormsCompleteInput!) {
          markFormsComplete(input: $input) {
            problems {
              field
              value
              reason
            }
          }
        }
      `,
      {
        input: {
          groupId: LAB.groupId,
          cloginId: LAB.cy,
          all: true,
          values: { f_501_3: "x" },
          disableEmailSending: true,
        },
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.markFormsComplete.problems).toEqual([{ field: "f_501_3", value: "x", reason: "NOT_A_NUMBER" }]);
  });
});

describe("createUser and createChild problems", () => {
  it("a new registration's values not written are problems too", async () => {
    const created = await graphql<{ createUser: Payload & { user: { cloginId: number } } }>(
      t.app,
      `
        mutation ($input: CreateUserInput!) {
          createUser(input: $input) {
            notices
            problems {
              field
              value
              reason
              message
            }
            user {
              cloginId
            }
          }
        }
      `,
      {
        input: {
          groupId: LAB.groupId,
          mainEmail: "probe@lab.test",
          firstName: "Probe",
          values: { f_501_3: "old", not_a_field: 7 },
          disableEmailSending: true,
        },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.createUser.problems.map(({ field, value, reason }) => ({ field, value, reason }))).toEqual([
      { field: "f_501_3", value: "old", reason: "NOT_A_NUMBER" },
      { field: "not_a_field", value: "7", reason: "UNKNOWN_FIELD" },
    ]);
    const child = await graphql<{ createChild: Payload }>(
      t.app,
      `
        mutation ($input: CreateChildInput!) {
          createChild(input: $input) {
            problems {
              field
              value
              reason
            }
          }
        }
      `,
      { input: { groupId: LAB.familyGroupId, connectedTo: 700005, firstName: "Kiddo", values: { f_603_1: "x" } } },
    );
    expect(child.errors).toBeUndefined();
    expect(child.data!.createChild.problems).toEqual([{ field: "f_603_1", value: "x", reason: "NOT_A_NUMBER" }]);
  });
});

describe("updateMe problems", () => {
  it("a registrant's value for an admin-only form is FORM_NOT_AVAILABLE; a choice none of whose answers fits, NO_MATCHING_CHOICE", async () => {
    const token = await sessionOf(LAB.ann);
    const res = await graphql<{ updateMe: Payload }>(
      t.app,
      `
        mutation ($values: JSONObject!) {
          updateMe(input: { values: $values, submitForms: false }) {
            notices
            problems {
              field
              value
              reason
              message
            }
          }
        }
      `,
      { values: { f_503_1: "note", f_501_7: ["XL"], f_501_3: 33 } },
      { Authorization: `Bearer ${token}` },
    );
    expect(res.errors).toBeUndefined();
    const payload = res.data!.updateMe;
    expect(payload.problems.map(({ field, value, reason }) => ({ field, value, reason }))).toEqual([
      { field: "f_503_1", value: "note", reason: "FORM_NOT_AVAILABLE" },
      { field: "f_501_7", value: "XL", reason: "UNKNOWN_CHOICE" },
      { field: "f_501_7", value: '["XL"]', reason: "NO_MATCHING_CHOICE" },
    ]);
    expect(payload.notices).toEqual(payload.problems.map((problem) => problem.message));
    expect(await stored(LAB.ann, "f_501_3")).toEqual(["33"]);
    expect(await stored(LAB.ann, "f_503_1")).toEqual([]);
  });
});
