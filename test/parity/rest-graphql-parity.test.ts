import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../graphql/graphql-client";
import { startTestApp, type TestApp } from "../support/test-app";
import {
  afterPath,
  graphqlFailure,
  parityFixture,
  registrationRows,
  rest,
  restFailure,
  tableCounts,
  TWINS,
  PROBLEMS,
} from "./parity-support";

// Issue 4 §8 and issue 7: for each operation, REST (POST /reg/api2/…) and GraphQL on equivalent
// subjects write the same rows and report the same outcome; for each failure, the same code, the
// same problem messages at the same member (each transport renders the path in its own names),
// and the same top-level message once the rendered path is taken off.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: parityFixture() });
});
afterAll(() => t.close());

const g = MAPLE.groupId;
const rows = (cloginId: number, groupId = g) => registrationRows(t.dataSource, groupId, cloginId);

describe("same rows through REST and GraphQL", () => {
  it("create user", async () => {
    const doc = {
      first_name: "Par",
      last_name: "Ity",
      password: "parity-secret",
      f_301_3: "m",
      f_301_2: ["swimming", "<i>ARCHERY</i>"],
      no_such_field: "x",
    };
    const viaRest = await rest(t.app, "users", {
      action: "create",
      group_id: g,
      doc: { ...doc, main_email: "parity-rest@maple.test" },
    });
    expect(viaRest.status).toBe(200);

    const viaGraphql = await graphqlData<{
      createUser: { notices: string[]; user: { cloginId: number; metaInfo: Record<string, unknown> } };
    }>(
      t.app,
      `mutation($input: CreateUserInput!) { createUser(input: $input) { notices user { cloginId metaInfo { totalForms completedForms totalOrder totalBalance } } } }`,
      {
        input: {
          groupId: g,
          mainEmail: "parity-graphql@maple.test",
          firstName: "Par",
          lastName: "Ity",
          password: "parity-secret",
          values: { f_301_3: "m", f_301_2: ["swimming", "<i>ARCHERY</i>"], no_such_field: "x" },
        },
      },
    );
    const restClogin = Number((viaRest.body.user_info as { clogin_id: string }).clogin_id);
    const graphqlClogin = viaGraphql.createUser.user.cloginId;
    expect(restClogin).not.toBe(graphqlClogin);

    const restRows = await rows(restClogin);
    // Submitting form 301 ran its triggers: an email (outbox and history), a cart line, form 302.
    expect(restRows.values.length).toBeGreaterThan(0);
    expect(restRows.triggersFired).toHaveLength(3);
    expect(restRows.outbox).toHaveLength(1);
    expect(restRows.cart).toHaveLength(1);
    expect(restRows.forms.map((form) => form.formId)).toContain(302);
    expect(await rows(graphqlClogin)).toEqual(restRows);
    expect(viaGraphql.createUser.notices).toEqual(viaRest.body.notices);
    const meta = viaRest.body.meta_info as Record<string, string>;
    expect(viaGraphql.createUser.user.metaInfo).toEqual({
      totalForms: Number(meta.total_forms),
      completedForms: Number(meta.completed_forms),
      totalOrder: meta.total_order,
      totalBalance: meta.total_balance,
    });
  });

  it("update user", async () => {
    const values = {
      f_301_1: "Twin",
      f_301_2: ["<b>archery</b>", "fencing"],
      emergency_name: "Kim",
      _system_key: "x",
      unknown_field: "y",
    };
    const viaRest = await rest(t.app, "users", {
      action: "update",
      group_id: g,
      clogin_id: TWINS.update.rest,
      doc: values,
      disable_email_sending: true,
    });
    expect(viaRest.status).toBe(200);
    const viaGraphql = await graphqlData<{ updateUser: { notices: string[] } }>(
      t.app,
      `mutation($input: UpdateUserInput!) { updateUser(input: $input) { notices } }`,
      { input: { groupId: g, cloginId: TWINS.update.graphql, values, disableEmailSending: true } },
    );
    const restRows = await rows(TWINS.update.rest);
    expect(restRows.values.map((row) => row.field_id)).toEqual(
      expect.arrayContaining(["f_301_1", "f_301_2", "f_304_1"]),
    );
    expect(await rows(TWINS.update.graphql)).toEqual(restRows);
    expect(viaGraphql.updateUser.notices).toEqual(viaRest.body.notices);
  });

  it("mark forms complete (ids, with values first)", async () => {
    const viaRest = await rest(t.app, "users", {
      action: "update",
      group_id: g,
      clogin_id: TWINS.mark.rest,
      // GraphQL formIds are Int, so "x" cannot be sent there; REST's string ids mean the same forms.
      mark_forms_complete: [304, "301", 999, 304],
      doc: { emergency_phone: "555-0100" },
    });
    expect(viaRest.status).toBe(200);
    const viaGraphql = await graphqlData<{
      markFormsComplete: { markedComplete: number[]; skipped: { formId: number; reason: string }[]; notices: string[] };
    }>(
      t.app,
      `mutation($input: MarkFormsCompleteInput!) { markFormsComplete(input: $input) { markedComplete skipped { formId reason } notices } }`,
      {
        input: {
          groupId: g,
          cloginId: TWINS.mark.graphql,
          formIds: [304, 301, 999, 304],
          values: { emergency_phone: "555-0100" },
        },
      },
    );
    const restRows = await rows(TWINS.mark.rest);
    expect(restRows.forms.filter((form) => form.completed === 1).map((form) => form.formId)).toEqual([301, 304]);
    expect(await rows(TWINS.mark.graphql)).toEqual(restRows);
    const marked = viaGraphql.markFormsComplete;
    expect(marked.markedComplete.map(String)).toEqual(viaRest.body.marked_complete);
    expect(marked.skipped.map((entry) => ({ form_id: String(entry.formId), reason: entry.reason }))).toEqual(
      viaRest.body.skipped,
    );
    expect(marked.notices).toEqual(viaRest.body.notices);
  });

  it("mark forms complete (all)", async () => {
    const viaRest = await rest(t.app, "users", {
      action: "update",
      group_id: g,
      clogin_id: TWINS.markAll.rest,
      mark_forms_complete: "all",
      submit_forms: false,
    });
    expect(viaRest.status).toBe(200);
    await graphqlData(
      t.app,
      `mutation($input: MarkFormsCompleteInput!) { markFormsComplete(input: $input) { markedComplete } }`,
      {
        input: { groupId: g, cloginId: TWINS.markAll.graphql, all: true, submitForms: false },
      },
    );
    const restRows = await rows(TWINS.markAll.rest);
    expect(restRows.forms.every((form) => form.completed === 1)).toBe(true);
    expect(await rows(TWINS.markAll.graphql)).toEqual(restRows);
  });

  it("add email", async () => {
    const emails = [
      {
        from: "office@maple.test",
        to: "a@x.test, b@x.test",
        subject: "Welcome",
        body: "<p>Hi</p>",
        cc: "dana@maple.test",
      },
      { from: "office@maple.test", to: "a@x.test", subject: "Invoice", body: "…", bcc: "books@maple.test" },
    ];
    const viaRest = await rest(t.app, "users", {
      action: "add_email",
      group_id: g,
      clogin_id: TWINS.email.rest,
      doc: { email_list: emails.map((email, i) => ({ ...email, admin_id: i === 0 ? 501 : undefined })) },
    });
    expect(viaRest.status).toBe(200);
    await graphqlData(t.app, `mutation($input: AddEmailInput!) { addEmail(input: $input) { notices } }`, {
      input: {
        groupId: g,
        cloginId: TWINS.email.graphql,
        emails: emails.map((email, i) => ({ ...email, adminId: i === 0 ? 501 : null })),
      },
    });
    const restRows = await rows(TWINS.email.rest);
    expect(restRows.emails.filter((email) => email.origin === "api")).toHaveLength(2);
    expect(await rows(TWINS.email.graphql)).toEqual(restRows);
  });

  it("create status", async () => {
    const viaRest = await rest(t.app, "statuses", {
      action: "create",
      group_id: MAPLE.groupId,
      doc: { status_name: " On hold ", color: "#abcdef", is_excluded: 1 },
    });
    expect(viaRest.status).toBe(200);
    const viaGraphql = await graphqlData<{ createStatus: { status: { statusId: number } } }>(
      t.app,
      `mutation($input: CreateStatusInput!) { createStatus(input: $input) { status { statusId } } }`,
      { input: { groupId: MAPLE.jazzGroupId, name: " On hold ", color: "#abcdef", isExcluded: true } },
    );
    const statusRow = async (id: unknown) => {
      const [row] = await t.dataSource.query("SELECT name, name_key, color, is_excluded FROM status WHERE id = ?", [
        Number(id),
      ]);
      return { name: row.name, nameKey: row.name_key, color: row.color, isExcluded: Number(row.is_excluded) };
    };
    const restRow = await statusRow(viaRest.body.status_id);
    expect(restRow).toEqual({ name: "On hold", nameKey: "on hold", color: "#ABCDEF", isExcluded: 1 });
    expect(await statusRow(viaGraphql.createStatus.status.statusId)).toEqual(restRow);
  });
});

interface ErrorCase {
  name: string;
  expected: string;
  rest: { endpoint: "users" | "statuses"; body: Record<string, unknown>; headers?: Record<string, string> };
  graphql: { query: string; variables: Record<string, unknown>; headers?: Record<string, string> };
  /** The member problems in order, as each transport names the member; none when absent. */
  problems?: { rest: string; graphql: string }[];
}

const CREATE_USER = `mutation($input: CreateUserInput!) { createUser(input: $input) { notices ${PROBLEMS} } }`;
const UPDATE_USER = `mutation($input: UpdateUserInput!) { updateUser(input: $input) { notices ${PROBLEMS} } }`;
const MARK = `mutation($input: MarkFormsCompleteInput!) { markFormsComplete(input: $input) { markedComplete ${PROBLEMS} } }`;
const ADD_EMAIL = `mutation($input: AddEmailInput!) { addEmail(input: $input) { notices ${PROBLEMS} } }`;
const SET_STATUS = `mutation($input: SetStatusInput!) { setStatus(input: $input) { notices ${PROBLEMS} } }`;
const ADD_PRODUCT = `mutation($input: AddProductInput!) { addProduct(input: $input) { cartIds ${PROBLEMS} } }`;
const CREATE_STATUS = `mutation($input: CreateStatusInput!) { createStatus(input: $input) { status { id } ${PROBLEMS} } }`;
const NO_CREDENTIALS = { "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": "not-the-token" };
const email = { from: "office@maple.test", to: "a@x.test", subject: "S", body: "B" };
const manyKeys = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, "v"]));
const manyIds = Array.from({ length: 1001 }, (_, i) => i + 1);
const manyEmails = Array.from({ length: 101 }, () => email);

const errorCases: ErrorCase[] = [
  // create user
  {
    name: "create: invalid main email",
    expected: "BAD_USER_INPUT",
    rest: { endpoint: "users", body: { action: "create", group_id: MAPLE.groupId, doc: { main_email: "nope" } } },
    graphql: { query: CREATE_USER, variables: { input: { groupId: MAPLE.groupId, mainEmail: "nope" } } },
    problems: [{ rest: "doc.main_email", graphql: "input.mainEmail" }],
  },
  {
    name: "create: unknown existing user",
    expected: "USER_NOT_FOUND",
    rest: { endpoint: "users", body: { action: "create", group_id: MAPLE.groupId, clogin_id: 555 } },
    graphql: { query: CREATE_USER, variables: { input: { groupId: MAPLE.groupId, cloginId: 555 } } },
  },
  {
    name: "create: foreign group",
    expected: "FORBIDDEN",
    rest: { endpoint: "users", body: { action: "create", group_id: OTHER.groupId, doc: { main_email: "x@y.test" } } },
    graphql: { query: CREATE_USER, variables: { input: { groupId: OTHER.groupId, mainEmail: "x@y.test" } } },
  },
  {
    name: "create: unauthenticated",
    expected: "UNAUTHENTICATED",
    rest: {
      endpoint: "users",
      body: { action: "create", group_id: MAPLE.groupId, doc: { main_email: "x@y.test" } },
      headers: NO_CREDENTIALS,
    },
    graphql: {
      query: CREATE_USER,
      variables: { input: { groupId: MAPLE.groupId, mainEmail: "x@y.test" } },
      headers: NO_CREDENTIALS,
    },
  },
  {
    name: "create: username taken",
    expected: "CONFLICT",
    rest: {
      endpoint: "users",
      body: { action: "create", group_id: MAPLE.groupId, doc: { main_email: "Miles@maple.test" } },
    },
    graphql: { query: CREATE_USER, variables: { input: { groupId: MAPLE.groupId, mainEmail: "Miles@maple.test" } } },
  },
  {
    name: "create: already registered",
    expected: "CONFLICT",
    rest: { endpoint: "users", body: { action: "create", group_id: MAPLE.groupId, clogin_id: MAPLE.bill } },
    graphql: { query: CREATE_USER, variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill } } },
  },
  // update
  {
    name: "update: too many values",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, doc: manyKeys },
    },
    graphql: {
      query: UPDATE_USER,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, values: manyKeys } },
    },
    problems: [{ rest: "doc", graphql: "input.values" }],
  },
  {
    name: "set status: unknown user",
    expected: "USER_NOT_FOUND",
    rest: {
      endpoint: "users",
      body: { action: "set_status", group_id: MAPLE.groupId, clogin_id: 555, status_id: 0 },
    },
    graphql: { query: SET_STATUS, variables: { input: { groupId: MAPLE.groupId, cloginId: 555, statusId: 0 } } },
  },
  {
    name: "update: foreign group",
    expected: "FORBIDDEN",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: OTHER.groupId, clogin_id: 300000001, doc: { f_901_1: "x" } },
    },
    graphql: {
      query: UPDATE_USER,
      variables: { input: { groupId: OTHER.groupId, cloginId: 300000001, values: { f_901_1: "x" } } },
    },
  },
  {
    name: "update: unauthenticated",
    expected: "UNAUTHENTICATED",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, doc: { f_301_1: "x" } },
      headers: NO_CREDENTIALS,
    },
    graphql: {
      query: UPDATE_USER,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, values: { f_301_1: "x" } } },
      headers: NO_CREDENTIALS,
    },
  },
  // mark forms complete
  {
    name: "mark: too many ids",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, mark_forms_complete: manyIds },
    },
    graphql: {
      query: MARK,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, formIds: manyIds } },
    },
    problems: [{ rest: "mark_forms_complete", graphql: "input.formIds" }],
  },
  {
    name: "add product: unknown user",
    expected: "USER_NOT_FOUND",
    rest: {
      endpoint: "users",
      body: { action: "add_product", group_id: MAPLE.groupId, clogin_id: 555, product_list: [{ p_id: 77, q: 1 }] },
    },
    graphql: {
      query: ADD_PRODUCT,
      variables: { input: { groupId: MAPLE.groupId, cloginId: 555, productList: [{ pId: 77, q: 1 }] } },
    },
  },
  {
    name: "mark: foreign group",
    expected: "FORBIDDEN",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: OTHER.groupId, clogin_id: 300000001, mark_forms_complete: "all" },
    },
    graphql: { query: MARK, variables: { input: { groupId: OTHER.groupId, cloginId: 300000001, all: true } } },
  },
  {
    name: "mark: unauthenticated",
    expected: "UNAUTHENTICATED",
    rest: {
      endpoint: "users",
      body: { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, mark_forms_complete: "all" },
      headers: NO_CREDENTIALS,
    },
    graphql: {
      query: MARK,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, all: true } },
      headers: NO_CREDENTIALS,
    },
  },
  // add email
  {
    name: "add email: invalid address",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: {
        action: "add_email",
        group_id: MAPLE.groupId,
        clogin_id: MAPLE.bill,
        doc: { email_list: [email, { ...email, to: "not-an-address" }] },
      },
    },
    graphql: {
      query: ADD_EMAIL,
      variables: {
        input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, emails: [email, { ...email, to: "not-an-address" }] },
      },
    },
    problems: [{ rest: "doc.email_list[1].to", graphql: "input.emails[1].to" }],
  },
  {
    name: "add email: unknown user",
    expected: "USER_NOT_FOUND",
    rest: {
      endpoint: "users",
      body: { action: "add_email", group_id: MAPLE.groupId, clogin_id: 555, doc: { email_list: [email] } },
    },
    graphql: { query: ADD_EMAIL, variables: { input: { groupId: MAPLE.groupId, cloginId: 555, emails: [email] } } },
  },
  {
    name: "add email: foreign group",
    expected: "FORBIDDEN",
    rest: {
      endpoint: "users",
      body: { action: "add_email", group_id: OTHER.groupId, clogin_id: 300000001, doc: { email_list: [email] } },
    },
    graphql: {
      query: ADD_EMAIL,
      variables: { input: { groupId: OTHER.groupId, cloginId: 300000001, emails: [email] } },
    },
  },
  {
    name: "add email: admin who may not send",
    expected: "FORBIDDEN",
    rest: {
      endpoint: "users",
      body: {
        action: "add_email",
        group_id: MAPLE.groupId,
        clogin_id: MAPLE.bill,
        doc: { email_list: [{ ...email, admin_id: 502 }] },
      },
    },
    graphql: {
      query: ADD_EMAIL,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, emails: [{ ...email, adminId: 502 }] } },
    },
    problems: [{ rest: "doc.email_list[0].admin_id", graphql: "input.emails[0].adminId" }],
  },
  {
    name: "add email: unauthenticated",
    expected: "UNAUTHENTICATED",
    rest: {
      endpoint: "users",
      body: { action: "add_email", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, doc: { email_list: [email] } },
      headers: NO_CREDENTIALS,
    },
    graphql: {
      query: ADD_EMAIL,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, emails: [email] } },
      headers: NO_CREDENTIALS,
    },
  },
  // create status
  {
    name: "status: invalid color",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: MAPLE.groupId, doc: { status_name: "X", color: "red" } },
    },
    graphql: { query: CREATE_STATUS, variables: { input: { groupId: MAPLE.groupId, name: "X", color: "red" } } },
    problems: [{ rest: "doc.color", graphql: "input.color" }],
  },
  {
    name: "status: foreign group",
    expected: "FORBIDDEN",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: OTHER.groupId, doc: { status_name: "X", color: "#000000" } },
    },
    graphql: { query: CREATE_STATUS, variables: { input: { groupId: OTHER.groupId, name: "X", color: "#000000" } } },
  },
  {
    name: "status: duplicate name",
    expected: "CONFLICT",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: MAPLE.groupId, doc: { status_name: "accepted", color: "#000000" } },
    },
    graphql: {
      query: CREATE_STATUS,
      variables: { input: { groupId: MAPLE.groupId, name: "accepted", color: "#000000" } },
    },
  },
  {
    name: "status: unauthenticated",
    expected: "UNAUTHENTICATED",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: MAPLE.groupId, doc: { status_name: "X", color: "#000000" } },
      headers: NO_CREDENTIALS,
    },
    graphql: {
      query: CREATE_STATUS,
      variables: { input: { groupId: MAPLE.groupId, name: "X", color: "#000000" } },
      headers: NO_CREDENTIALS,
    },
  },
  // validation through both transports: same problems, paths in each transport's names
  {
    name: "create: a new person without main email, and a short password",
    expected: "BAD_USER_INPUT",
    rest: { endpoint: "users", body: { action: "create", group_id: MAPLE.groupId, doc: { password: "123" } } },
    graphql: { query: CREATE_USER, variables: { input: { groupId: MAPLE.groupId, password: "123" } } },
    problems: [
      { rest: "doc.main_email", graphql: "input.mainEmail" },
      { rest: "doc.password", graphql: "input.password" },
    ],
  },
  {
    name: "create: a first name longer than its column",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: {
        action: "create",
        group_id: MAPLE.groupId,
        doc: { main_email: "long@maple.test", first_name: "x".repeat(101) },
      },
    },
    graphql: {
      query: CREATE_USER,
      variables: { input: { groupId: MAPLE.groupId, mainEmail: "long@maple.test", firstName: "x".repeat(101) } },
    },
    problems: [{ rest: "doc.first_name", graphql: "input.firstName" }],
  },
  {
    name: "add email: 101 emails (the list limit, once for both)",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "add_email", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, doc: { email_list: manyEmails } },
    },
    graphql: {
      query: ADD_EMAIL,
      variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, emails: manyEmails } },
    },
    problems: [{ rest: "doc.email_list", graphql: "input.emails" }],
  },
  {
    name: "add email: an empty list",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: { action: "add_email", group_id: MAPLE.groupId, clogin_id: MAPLE.bill, doc: { email_list: [] } },
    },
    graphql: { query: ADD_EMAIL, variables: { input: { groupId: MAPLE.groupId, cloginId: MAPLE.bill, emails: [] } } },
    problems: [{ rest: "doc.email_list", graphql: "input.emails" }],
  },
  {
    name: "add email: an empty subject and a bad sender, in two emails",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "users",
      body: {
        action: "add_email",
        group_id: MAPLE.groupId,
        clogin_id: MAPLE.bill,
        doc: {
          email_list: [
            { ...email, subject: " " },
            { ...email, from: "nobody" },
          ],
        },
      },
    },
    graphql: {
      query: ADD_EMAIL,
      variables: {
        input: {
          groupId: MAPLE.groupId,
          cloginId: MAPLE.bill,
          emails: [
            { ...email, subject: " " },
            { ...email, from: "nobody" },
          ],
        },
      },
    },
    problems: [
      { rest: "doc.email_list[0].subject", graphql: "input.emails[0].subject" },
      { rest: "doc.email_list[1].from", graphql: "input.emails[1].from" },
    ],
  },
  {
    name: "status: blank name and a colour word",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: MAPLE.groupId, doc: { status_name: "  ", color: "green" } },
    },
    graphql: { query: CREATE_STATUS, variables: { input: { groupId: MAPLE.groupId, name: "  ", color: "green" } } },
    problems: [
      { rest: "doc.status_name", graphql: "input.name" },
      { rest: "doc.color", graphql: "input.color" },
    ],
  },
  {
    name: "status: a name over 100 characters",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: MAPLE.groupId, doc: { status_name: "n".repeat(101), color: "#000000" } },
    },
    graphql: {
      query: CREATE_STATUS,
      variables: { input: { groupId: MAPLE.groupId, name: "n".repeat(101), color: "#000000" } },
    },
    problems: [{ rest: "doc.status_name", graphql: "input.name" }],
  },
  {
    name: "status: invalid members for a foreign project are still 400 (validation before ownership)",
    expected: "BAD_USER_INPUT",
    rest: {
      endpoint: "statuses",
      body: { action: "create", group_id: OTHER.groupId, doc: { status_name: "X", color: "red" } },
    },
    graphql: { query: CREATE_STATUS, variables: { input: { groupId: OTHER.groupId, name: "X", color: "red" } } },
    problems: [{ rest: "doc.color", graphql: "input.color" }],
  },
];

describe("same failure through REST and GraphQL: code (VALIDATION_FAILED ↔ BAD_USER_INPUT), problems, message", () => {
  let before: Record<string, number>;
  beforeAll(async () => {
    before = await tableCounts(t.dataSource);
  });

  it("covers at least 30 failures", () => {
    expect(errorCases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(errorCases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const viaRest = await rest(t.app, c.rest.endpoint, c.rest.body, c.rest.headers);
    expect(viaRest.body.success).toBe(false);
    const restSide = restFailure(viaRest.body);
    const graphqlSide = await graphqlFailure(t.app, c.graphql.query, c.graphql.variables, c.graphql.headers);
    expect([restSide.code, graphqlSide.code]).toEqual([c.expected, c.expected]);

    const expected = c.problems ?? [];
    expect(restSide.problems.map((p) => p.path)).toEqual(expected.map((p) => p.rest));
    expect(graphqlSide.problems.map((p) => p.path)).toEqual(expected.map((p) => p.graphql));
    expect(graphqlSide.problems.map((p) => p.message)).toEqual(restSide.problems.map((p) => p.message));
    if (expected.length > 0) {
      expect(afterPath(graphqlSide.message, expected[0].graphql)).toBe(afterPath(restSide.message, expected[0].rest));
    } else {
      expect(graphqlSide.message).toBe(restSide.message);
    }
  });

  it("and neither interface wrote anything for any of them", async () => {
    expect(await tableCounts(t.dataSource)).toEqual(before);
  });

  it("CONFLICT carries the existing status id on both (status_id ↔ statusId)", async () => {
    const viaRest = await rest(t.app, "statuses", {
      action: "create",
      group_id: MAPLE.groupId,
      doc: { status_name: "ACCEPTED", color: "#000000" },
    });
    const viaGraphql = await graphql(t.app, CREATE_STATUS, {
      input: { groupId: MAPLE.groupId, name: "ACCEPTED", color: "#000000" },
    });
    expect(viaGraphql.errors?.[0].extensions?.statusId).toBe(viaRest.body.status_id);
    expect(viaGraphql.errors?.[0].message).toBe(viaRest.body.msg);
  });
});

describe("update for someone not registered in the project: REST follows the seed, GraphQL refuses", () => {
  // Seed §7 case 1: the original interface accepts such an update and changes nothing; legacy
  // integrations that loop over their own user lists rely on it. GraphQL is our interface and
  // keeps USER_NOT_FOUND. Both come from the same domain call and write nothing.
  it.each([
    ["update", { doc: { f_301_1: "x" } }, UPDATE_USER, { values: { f_301_1: "x" } }],
    ["mark", { mark_forms_complete: "all" }, MARK, { all: true }],
  ])(
    "%s: REST 200 with a notice and meta_info null; GraphQL USER_NOT_FOUND; nothing written",
    async (_n, members, query, input) => {
      const before = await tableCounts(t.dataSource);
      const viaRest = await rest(t.app, "users", { action: "update", group_id: g, clogin_id: 555, ...members });
      expect(viaRest.status).toBe(200);
      expect(viaRest.body).toMatchObject({
        success: true,
        system_action: [],
        notices: [`User 555 is not registered in project ${g}; nothing was written.`],
        meta_info: null,
      });
      const viaGraphql = await graphqlFailure(t.app, query, { input: { groupId: g, cloginId: 555, ...input } });
      expect(viaGraphql.code).toBe("USER_NOT_FOUND");
      expect(viaGraphql.message).toBe(`User 555 is not registered in project ${g}.`);
      expect(await tableCounts(t.dataSource)).toEqual(before);
    },
  );
});
