import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql, graphqlData } from "../support/graphql";

// Issue 4 §3: the mutations' GraphQL shapes. Their rules are the domain's; the parity tests
// (test/parity) prove REST and GraphQL write the same rows.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const g = MAPLE.groupId;

describe("createUser", () => {
  it("registers a new person with the project's initial forms and values, and reports unwritten values", async () => {
    const { createUser } = await graphqlData<{
      createUser: { notices: string[]; user: Record<string, unknown> & { forms: { form: { formId: number } }[] } };
    }>(
      t.app,
      `mutation($input: CreateUserInput!) { createUser(input: $input) { notices user {
         groupId name username mainEmail metaInfo { totalForms completedForms totalOrder }
         forms { completed form { formId } } fieldValues { field { identifier } text choices } } } }`,
      {
        input: {
          groupId: g,
          mainEmail: "ella@maple.test",
          firstName: "Ella",
          lastName: "Fitzgerald",
          password: "scat-singer",
          values: { f_301_3: "m", not_a_field: "x" },
          disableEmailSending: true,
        },
      },
    );
    expect(createUser.user).toMatchObject({
      groupId: g,
      name: "Ella Fitzgerald",
      username: "ella@maple.test",
      mainEmail: "ella@maple.test",
    });
    expect(createUser.user.fieldValues).toEqual([
      { field: { identifier: "f_301_1" }, text: "Ella", choices: null },
      { field: { identifier: "f_301_3" }, text: null, choices: ["M"] },
    ]);
    expect(createUser.notices).toHaveLength(1);
    expect(createUser.notices[0]).toContain("not_a_field");
    // Initial parent-level forms, plus the form added by 301's add_form trigger on submission.
    expect(createUser.user.forms.map((entry) => entry.form.formId)).toEqual([301, 302, 303, 304]);
    expect(createUser.user.metaInfo).toEqual({ totalForms: 4, completedForms: 1, totalOrder: "350.00" });
  });
});

describe("markFormsComplete", () => {
  const MARK = `mutation($input: MarkFormsCompleteInput!) { markFormsComplete(input: $input) {
      markedComplete skipped { formId reason } notices user { metaInfo { completedForms } forms { form { formId } completed completedAt } } } }`;
  type Marked = {
    markFormsComplete: {
      markedComplete: number[];
      skipped: { formId: number; reason: string }[];
      notices: string[];
      user: {
        metaInfo: { completedForms: number };
        forms: { form: { formId: number }; completed: boolean; completedAt: string | null }[];
      };
    };
  };

  it("marks the user's forms, skips others with reasons, names empty mandatory fields, and repeats identically", async () => {
    const input = {
      groupId: g,
      cloginId: MAPLE.bill,
      formIds: [304, 401, 999999, 304],
      disableEmailSending: true,
    };
    const first = (await graphqlData<Marked>(t.app, MARK, { input })).markFormsComplete;
    expect(first.markedComplete).toEqual([304]);
    expect(first.skipped.map((entry) => entry.formId).sort()).toEqual([401, 999999]);
    expect(first.skipped.every((entry) => entry.reason.length > 0)).toBe(true);
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toMatch(/304.*Emergency contact.*f_304_1.*Contact name/);
    const completedAt = first.user.forms.find((entry) => entry.form.formId === 304)?.completedAt;
    expect(completedAt).not.toBeNull();
    expect(first.user.metaInfo.completedForms).toBe(1);

    const again = (await graphqlData<Marked>(t.app, MARK, { input })).markFormsComplete;
    expect(again.markedComplete).toEqual(first.markedComplete);
    expect(again.skipped).toEqual(first.skipped);
    expect(again.user.forms.find((entry) => entry.form.formId === 304)?.completedAt).toBe(completedAt);
  });

  it("saves values first and then marks every form of the set", async () => {
    const { markFormsComplete } = await graphqlData<Marked>(t.app, MARK, {
      input: {
        groupId: g,
        cloginId: MAPLE.miles,
        all: true,
        values: { emergency_name: "Dana", emergency_phone: "555-0101" },
        disableEmailSending: true,
      },
    });
    // Miles's set is 301, 303, 304; completing 301 runs its add_form trigger, which adds 302 afterwards.
    expect([...markFormsComplete.markedComplete].sort()).toEqual([301, 303, 304]);
    const completed = markFormsComplete.user.forms.filter((entry) => entry.completed).map((entry) => entry.form.formId);
    expect(completed).toEqual([301, 303, 304]);
    // The values were saved before marking, so 304 is not reported with empty mandatory fields.
    expect(markFormsComplete.notices.some((notice) => notice.includes("Emergency contact"))).toBe(false);
  });
});

describe("addEmail", () => {
  const ADD = `mutation($input: AddEmailInput!) { addEmail(input: $input) { user { emails { from to cc subject body origin adminId } } } }`;

  it("accepts one email object (list input coercion) or several, and records them with origin API", async () => {
    const one = { from: "office@maple.test", to: "bill@maple.test", subject: "Welcome", body: "Hello Bill" };
    const single = await graphqlData<{ addEmail: { user: { emails: Record<string, unknown>[] } } }>(t.app, ADD, {
      input: { groupId: g, cloginId: MAPLE.bill, emails: one },
    });
    expect(single.addEmail.user.emails.filter((email) => email.origin === "API")).toEqual([
      { ...one, cc: null, adminId: null, origin: "API" },
    ]);

    const two = [
      { ...one, subject: "Reminder", cc: "dana@maple.test", adminId: 501 },
      { ...one, subject: "Receipt" },
    ];
    const many = await graphqlData<{ addEmail: { user: { emails: { subject: string; origin: string }[] } } }>(
      t.app,
      ADD,
      { input: { groupId: g, cloginId: MAPLE.bill, emails: two } },
    );
    expect(many.addEmail.user.emails.filter((email) => email.origin === "API").map((email) => email.subject)).toEqual([
      "Welcome",
      "Reminder",
      "Receipt",
    ]);
  });

  it("writes nothing when one email of the list is invalid", async () => {
    const count = async () => Number((await t.dataSource.query("SELECT COUNT(*) AS n FROM email_record"))[0].n);
    const before = await count();
    const response = await graphql(t.app, ADD, {
      input: {
        groupId: g,
        cloginId: MAPLE.bill,
        emails: [
          { from: "a@b.test", to: "c@d.test", subject: "ok", body: "" },
          { from: "a@b.test", to: "not-an-address", subject: "bad", body: "" },
        ],
      },
    });
    expect(response.errors).toBeUndefined();
    expect(response.data?.addEmail).toEqual({ user: null });
    expect(await count()).toBe(before);
  });
});

describe("several mutations in one request", () => {
  it("each payload sees the writes before it (loaders are cleared after every write)", async () => {
    const email = (subject: string) =>
      `{from: "office@maple.test", to: "miles@maple.test", subject: "${subject}", body: "."}`;
    const data = await graphqlData<Record<string, { user: { emails: { subject: string }[] } }>>(
      t.app,
      `mutation { first: addEmail(input: {groupId: ${g}, cloginId: ${MAPLE.miles}, emails: [${email("One")}]}) { user { emails { subject } } }
                  second: addEmail(input: {groupId: ${g}, cloginId: ${MAPLE.miles}, emails: [${email("Two")}]}) { user { emails { subject } } } }`,
    );
    const subjects = (key: string) =>
      data[key].user.emails.map((entry) => entry.subject).filter((s) => s === "One" || s === "Two");
    expect(subjects("first")).toEqual(["One"]);
    expect(subjects("second")).toEqual(["One", "Two"]);
  });
});

describe("createStatus", () => {
  it("creates a status and returns it; the same name again is a CONFLICT naming it", async () => {
    const create = (name: string) =>
      graphql<{ createStatus: { status: { statusId: number; name: string; color: string; isExcluded: boolean } } }>(
        t.app,
        `
          mutation ($input: CreateStatusInput!) {
            createStatus(input: $input) {
              status {
                statusId
                name
                color
                isExcluded
              }
            }
          }
        `,
        { input: { groupId: g, name, color: "#aabbcc", isExcluded: true } },
      );
    const created = await create("Waitlist");
    expect(created.errors).toBeUndefined();
    const status = created.data!.createStatus.status;
    expect(status).toMatchObject({ name: "Waitlist", isExcluded: true });
    expect(status.color.toUpperCase()).toBe("#AABBCC");
    const row = (
      await t.dataSource.query("SELECT project_id, name, is_excluded FROM status WHERE id = ?", [status.statusId])
    )[0];
    expect({ projectId: Number(row.project_id), name: row.name, excluded: Number(row.is_excluded) }).toEqual({
      projectId: g,
      name: "Waitlist",
      excluded: 1,
    });

    const again = await create("waitlist");
    expect(again.errors?.[0].extensions).toEqual({ code: "CONFLICT", statusId: status.statusId });
  });
});
