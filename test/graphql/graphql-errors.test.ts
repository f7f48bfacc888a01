import { MAPLE, OTHER, mapleHeaders } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql } from "../support/graphql";
import { watchTables } from "../support/tables";

// Issue 4 §1 and contract §2–§3 on GraphQL: the same authentication as REST (a whole request
// fails with HTTP 401 before any resolver), domain codes in extensions.code with VALIDATION_FAILED
// as BAD_USER_INPUT, and member problems in extensions.problems.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const PROJECTS = "{ projects { groupId } }";
const REFUSED = "Authentication failed: Api-Id, Api-User and Api-Token must match an active API account.";
describe("authentication (same headers and code as REST)", () => {
  it("refuses a request without credentials as a whole: 401 UNAUTHENTICATED and no data, naming both ways in", async () => {
    const response = await graphql(t.app, PROJECTS, {}, {});
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      errors: [
        {
          message:
            "Authentication required: send Authorization: Bearer <session token> for a registrant session, or Api-Id, Api-User and Api-Token for an API account.",
          extensions: { code: "UNAUTHENTICATED" },
        },
      ],
    });
  });

  it("gives the same answer for a wrong token, an unknown Api-Id, a wrong Api-User and an inactive account", async () => {
    const attempts = [
      { ...mapleHeaders, "Api-Token": "wrong-token" },
      { ...mapleHeaders, "Api-Id": "99999" },
      { ...mapleHeaders, "Api-User": "someone@else.test" },
      { "Api-Id": "20002", "Api-User": "old@other.test", "Api-Token": "inactive-token-20002" },
    ];
    for (const headers of attempts) {
      const response = await graphql(t.app, PROJECTS, {}, headers);
      expect(response.status).toBe(401);
      expect(response.errors).toEqual([{ message: REFUSED, extensions: { code: "UNAUTHENTICATED" } }]);
    }
  });

  it("reads the header names case-insensitively", async () => {
    const response = await graphql(
      t.app,
      PROJECTS,
      {},
      { "api-id": MAPLE.apiId, "API-USER": MAPLE.apiUser, "aPi-ToKeN": MAPLE.apiToken },
    );
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ projects: [{ groupId: MAPLE.groupId }, { groupId: MAPLE.jazzGroupId }] });
  });

  it("answers 401 STALE_TIMESTAMP for a Timestamp out of the window or not an integer, and accepts a current one", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [String(now - 301), String(now + 400), "yesterday"]) {
      const response = await graphql(t.app, PROJECTS, {}, { ...mapleHeaders, Timestamp: timestamp });
      expect(response.status).toBe(401);
      expect(response.errors?.[0].extensions?.code).toBe("STALE_TIMESTAMP");
    }
    expect((await graphql(t.app, PROJECTS, {}, { ...mapleHeaders, Timestamp: String(now) })).status).toBe(200);
  });

  it("lets only introspection through without credentials (the explorer shows the schema first)", async () => {
    const introspection = await graphql(t.app, 'query { __type(name: "User") { name } __typename }', {}, {});
    expect(introspection.status).toBe(200);
    expect(introspection.data).toEqual({ __type: { name: "User" }, __typename: "Query" });

    const sneaky = await graphql(t.app, "fragment F on Query { projects { name } } query { __typename ...F }", {}, {});
    expect(sneaky.status).toBe(401);
    expect(sneaky.data).toBeUndefined();
  });

  it("runs no mutation without credentials and writes nothing", async () => {
    const tables = await watchTables(t.dataSource);
    const response = await graphql(
      t.app,
      `mutation { createStatus(input: {groupId: ${MAPLE.groupId}, name: "Nope", color: "#000000"}) { status { id } } }`,
      {},
      {},
    );
    expect(response.status).toBe(401);
    await tables.expectNothingWritten();
  });
});

describe("ownership of group ids (contract §2)", () => {
  const reads: [string, string][] = [
    ["project", "query($g: Int!) { project(groupId: $g) { name } }"],
    ["user", "query($g: Int!) { user(groupId: $g, cloginId: 102670540) { uid } }"],
    ["users", "query($g: Int!) { users(groupId: $g) { totalCount } }"],
    [
      "updateUser",
      "mutation($g: Int!) { updateUser(input: {groupId: $g, cloginId: 102670540, values: {}}) { notices } }",
    ],
    [
      "markFormsComplete",
      "mutation($g: Int!) { markFormsComplete(input: {groupId: $g, cloginId: 102670540, all: true}) { markedComplete } }",
    ],
    [
      "addEmail",
      'mutation($g: Int!) { addEmail(input: {groupId: $g, cloginId: 102670540, emails: [{from: "a@b.test", to: "c@d.test", subject: "s", body: "b"}]}) { notices } }',
    ],
    [
      "createStatus",
      'mutation($g: Int!) { createStatus(input: {groupId: $g, name: "X", color: "#000000"}) { status { id } } }',
    ],
    ["createUser", 'mutation($g: Int!) { createUser(input: {groupId: $g, mainEmail: "x@y.test"}) { notices } }'],
  ];

  const NULLABLE_LOOKUPS = new Set(["user", "project"]);

  it.each(reads)(
    "%s answers FORBIDDEN alike for another organization's project and a missing one",
    async (field, query) => {
      for (const groupId of [OTHER.groupId, 999_999_999]) {
        const response = await graphql(t.app, query, { g: groupId });
        expect(response.status).toBe(200);
        // A lookup (user, project) is nullable since issue 24: null with its error; a list is not.
        expect(response.data).toEqual(NULLABLE_LOOKUPS.has(field) ? { [field]: null } : null);
        expect(response.errors).toEqual([
          expect.objectContaining({
            message: `group_id ${groupId} is not a project of your organization`,
            path: [field],
            extensions: { code: "FORBIDDEN" },
          }),
        ]);
      }
    },
  );
});

describe("domain errors keep their codes", () => {
  it("USER_NOT_FOUND for a user not registered in the project", async () => {
    const response = await graphql(t.app, "query($g: Int!) { user(groupId: $g, cloginId: 555) { uid } }", {
      g: MAPLE.groupId,
    });
    expect(response.errors?.[0]).toMatchObject({
      message: `User 555 is not registered in project ${MAPLE.groupId}.`,
      extensions: { code: "USER_NOT_FOUND" },
    });
  });

  it("a mutation's refused input: the payload's problems (data kept), no error", async () => {
    const response = await graphql(
      t.app,
      'mutation($g: Int!) { createStatus(input: {groupId: $g, name: "  ", color: "green"}) { status { id } problems { field value reason message } } }',
      { g: MAPLE.groupId },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.createStatus).toEqual({
      status: null,
      problems: [
        { field: "input.name", value: "  ", reason: "EMPTY", message: "must not be empty" },
        {
          field: "input.color",
          value: "green",
          reason: "INVALID_FORMAT",
          message: 'must be a colour of the form #RRGGBB, got "green"',
        },
      ],
    });
  });

  it("BAD_USER_INPUT with the domain's member problems for VALIDATION_FAILED of a query", async () => {
    const response = await graphql(t.app, 'query { node(id: "bm9wZQ==") { id } }', {});
    const extensions = response.errors?.[0].extensions as {
      code: string;
      problems: { path: string; message: string }[];
    };
    expect(extensions.code).toBe("BAD_USER_INPUT");
    expect(extensions.problems.map((problem) => problem.path)).toEqual(["id"]);
    expect(extensions.problems.every((problem) => problem.message.length > 0)).toBe(true);
  });

  it("CONFLICT with the existing status id in extensions.statusId", async () => {
    const response = await graphql(
      t.app,
      'mutation($g: Int!) { createStatus(input: {groupId: $g, name: "ACCEPTED", color: "#00AA00"}) { status { id } } }',
      {
        g: MAPLE.groupId,
      },
    );
    expect(response.errors?.[0].extensions).toEqual({ code: "CONFLICT", statusId: 9 });
  });

  it("BAD_USER_INPUT from class-validator, with problems but without echoing the input", async () => {
    const response = await graphql(
      t.app,
      'query($g: Int!) { users(groupId: $g, first: 101, filter: {search: "' + "s".repeat(101) + '"}) { totalCount } }',
      {
        g: MAPLE.groupId,
      },
    );
    const error = response.errors?.[0];
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    // Issue 20: the path names the member once ("first first must not be …" before).
    expect(error?.message).toBe("first must not be greater than 100 (and 1 more problem, see errors).");
    expect(error?.extensions?.problems).toEqual([
      { path: "first", message: "must not be greater than 100" },
      { path: "filter.search", message: "must be shorter than or equal to 100 characters" },
    ]);
    expect(Object.keys(error?.extensions ?? {}).sort()).toEqual(["code", "problems"]);
    expect(JSON.stringify(response.body)).not.toContain("s".repeat(101));
  });

  it("BAD_USER_INPUT naming last once when a page gets both first and last", async () => {
    const response = await graphql(t.app, "query($g: Int!) { users(groupId: $g, first: 2, last: 2) { totalCount } }", {
      g: MAPLE.groupId,
    });
    expect(response.errors?.[0]).toMatchObject({
      message: "last cannot be given with first: give first (forward) or last (backward).",
      extensions: {
        code: "BAD_USER_INPUT",
        problems: [{ path: "last", message: "cannot be given with first: give first (forward) or last (backward)" }],
      },
    });
  });

  it("BAD_USER_INPUT for a cursor this API did not make", async () => {
    const response = await graphql(
      t.app,
      'query($g: Int!) { users(groupId: $g, after: "bm90LWEtY3Vyc29y") { totalCount } }',
      { g: MAPLE.groupId },
    );
    expect(response.errors?.[0]).toMatchObject({
      extensions: {
        code: "BAD_USER_INPUT",
        problems: [{ path: "after", message: "is not a cursor returned by this API" }],
      },
    });
  });

  it("CONFLICTING_MEMBERS in the payload when markFormsComplete gets both or neither of formIds and all", async () => {
    for (const selection of ["", "formIds: [301], all: true"]) {
      const response = await graphql(
        t.app,
        `mutation($g: Int!) { markFormsComplete(input: {groupId: $g, cloginId: ${MAPLE.miles} ${selection}}) { markedComplete problems { field reason } } }`,
        { g: MAPLE.groupId },
      );
      expect(response.errors).toBeUndefined();
      expect(response.data?.markFormsComplete).toEqual({
        markedComplete: [],
        problems: [{ field: "input.formIds", reason: "CONFLICTING_MEMBERS" }],
      });
    }
    const forms = await t.dataSource.query("SELECT COUNT(*) AS n FROM registration_form WHERE completed = 1");
    expect(Number(forms[0].n)).toBe(0);
  });
});
