import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLEnumType,
} from "graphql";
import { DEFAULT_DELIVERY } from "../../src/config/config";
import { PROBLEM_REASONS } from "../../src/domain/problems";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../graphql/graphql-client";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { watchTables } from "../support/tables";

// Issue 35 §4: one error shape for a form. Invalid input to any mutation with an input answers
// the payload, `data` kept, with typed problems (field, value, reason from the one reason enum,
// message) instead of `data: null` and extensions.problems; nothing is written. REST keeps its
// error body, with the same message per member.

/** The committed schema (its drift test holds it equal to the one the server builds). */
const buildTestSchema = () => buildSchema(readFileSync(join(__dirname, "../../schema.graphql"), "utf8"));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } } });
});
afterAll(() => t.close());

const g = MAPLE.groupId;
const PROBLEMS = "problems { field value reason message }";

interface Problem {
  field: string;
  value: string | null;
  reason: string;
  message: string;
}

interface RefusedCase {
  mutation: string;
  inputType: string;
  /** What the payload selects besides its problems (all of it null or empty when refused). */
  selection: string;
  input: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  expected: Omit<Problem, "message">[];
  headers?: () => Promise<Record<string, string>>;
}

async function registrantHeaders(): Promise<Record<string, string>> {
  const loggedIn = await postRest(t.app, "users", { action: "login", group_id: g, clogin_id: MAPLE.miles, doc: {} });
  const session = await postRest(t.app, "/reg/api2/session/", { user_token: loggedIn.body.user_token }, {});
  return { Authorization: `Bearer ${String(session.body.session_token)}` };
}

let endpointId = 0;
const manyValues = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, "v"]));
const email = { from: "office@maple.test", to: "a@x.test", subject: "S", body: "B" };

const cases: RefusedCase[] = [
  {
    mutation: "addEmail",
    inputType: "AddEmailInput",
    selection: "user { uid } notices",
    input: { groupId: g, cloginId: MAPLE.bill, emails: [email, { ...email, to: "not-an-address" }] },
    expected: [{ field: "input.emails[1].to", value: "not-an-address", reason: "INVALID_EMAIL" }],
  },
  {
    mutation: "addMyProduct",
    inputType: "AddMyProductInput",
    selection: "user { uid } cartIds notices",
    input: { productList: [{ productId: 999999, quantity: 1 }] },
    headers: registrantHeaders,
    expected: [{ field: "input.productList[0].productId", value: "999999", reason: "NOT_AVAILABLE" }],
  },
  {
    mutation: "removeCartLine",
    inputType: "RemoveCartLineInput",
    selection: "user { uid } removedCartLineId",
    input: { groupId: g, cloginId: MAPLE.bill, cartLineId: 999999 },
    expected: [{ field: "input.cartLineId", value: "999999", reason: "NOT_AVAILABLE" }],
  },
  {
    mutation: "removeMyCartLine",
    inputType: "RemoveMyCartLineInput",
    selection: "user { uid } removedCartLineId",
    input: { cartLineId: 999999 },
    headers: registrantHeaders,
    expected: [{ field: "input.cartLineId", value: "999999", reason: "NOT_AVAILABLE" }],
  },
  {
    mutation: "addProduct",
    inputType: "AddProductInput",
    selection: "user { uid } cartIds notices",
    input: { groupId: g, cloginId: MAPLE.bill, productList: [{ productId: 77, quantity: 0 }] },
    expected: [{ field: "input.productList[0].quantity", value: "0", reason: "OUT_OF_RANGE" }],
  },
  {
    mutation: "createCategory",
    inputType: "CreateCategoryInput",
    selection: "categoryId",
    input: { groupId: g, categoryName: "  ", categoryQuotaOrdered: 0 },
    expected: [
      { field: "input.categoryName", value: "  ", reason: "EMPTY" },
      { field: "input.categoryQuotaOrdered", value: null, reason: "OUT_OF_RANGE" },
    ],
  },
  {
    mutation: "createChild",
    inputType: "CreateChildInput",
    selection: "user { uid } notices",
    input: { groupId: MAPLE.jazzGroupId, connectedTo: MAPLE.miles },
    expected: [{ field: "input.groupId", value: null, reason: "NOT_AVAILABLE" }],
  },
  {
    mutation: "createProduct",
    inputType: "CreateProductInput",
    selection: "productId",
    input: { groupId: g, baseProductType: 1, productName: " ", productPrice: "1.005", categoryId: 13 },
    expected: [
      { field: "input.productName", value: " ", reason: "EMPTY" },
      { field: "input.productPrice", value: "1.005", reason: "INVALID_FORMAT" },
    ],
  },
  {
    mutation: "createStatus",
    inputType: "CreateStatusInput",
    selection: "status { id }",
    input: { groupId: g, name: "Waiting", color: "green" },
    expected: [{ field: "input.color", value: "green", reason: "INVALID_FORMAT" }],
  },
  {
    mutation: "createUser",
    inputType: "CreateUserInput",
    selection: "user { uid } notices",
    input: { groupId: g, mainEmail: "nope", password: "abc" },
    // The password's value is never echoed.
    expected: [
      { field: "input.mainEmail", value: "nope", reason: "INVALID_EMAIL" },
      { field: "input.password", value: null, reason: "TOO_SHORT" },
    ],
  },
  {
    mutation: "createWebhookEndpoint",
    inputType: "CreateWebhookEndpointInput",
    selection: "endpoint { id } secret",
    input: { url: "ftp://example.com/x", events: ["user.created"] },
    expected: [{ field: "input.url", value: "ftp://example.com/x", reason: "INVALID_FORMAT" }],
  },
  {
    mutation: "erasePerson",
    inputType: "ErasePersonInput",
    selection: "cloginId groupIds erased { forms }",
    input: { groupId: g, cloginId: -1 },
    expected: [{ field: "input.cloginId", value: "-1", reason: "NOT_AN_INTEGER" }],
  },
  {
    mutation: "markFormsComplete",
    inputType: "MarkFormsCompleteInput",
    selection: "markedComplete skipped { formId } notices user { uid }",
    input: { groupId: g, cloginId: MAPLE.miles, formIds: [301], all: true },
    expected: [{ field: "input.formIds", value: null, reason: "CONFLICTING_MEMBERS" }],
  },
  {
    mutation: "setStatus",
    inputType: "SetStatusInput",
    selection: "user { uid } notices",
    input: { groupId: g, cloginId: MAPLE.miles, statusId: 90 },
    expected: [{ field: "input.statusId", value: "90", reason: "NOT_AVAILABLE" }],
  },
  {
    mutation: "updateMe",
    inputType: "UpdateMeInput",
    selection: "user { uid } notices",
    input: { values: manyValues },
    headers: registrantHeaders,
    expected: [{ field: "input.values", value: null, reason: "TOO_MANY_ITEMS" }],
  },
  {
    mutation: "updateUser",
    inputType: "UpdateUserInput",
    selection: "user { uid } notices",
    input: { groupId: g, cloginId: MAPLE.miles, values: manyValues },
    expected: [{ field: "input.values", value: null, reason: "TOO_MANY_ITEMS" }],
  },
  {
    mutation: "updateWebhookEndpoint",
    inputType: "UpdateWebhookEndpointInput",
    selection: "endpoint { id }",
    input: async () => ({ endpointId, url: "not a url" }),
    expected: [{ field: "input.url", value: "not a url", reason: "INVALID_FORMAT" }],
  },
];

describe("invalid input to a mutation: the payload's typed problems, data kept, nothing written", () => {
  beforeAll(async () => {
    const created = await graphqlData<{ createWebhookEndpoint: { endpoint: { endpointId: number } } }>(
      t.app,
      `mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/x", events: ["user.created"] }) { endpoint { endpointId } } }`,
    );
    endpointId = created.createWebhookEndpoint.endpoint.endpointId;
  });

  it.each(cases.map((c) => [c.mutation, c] as const))("%s", async (_name, c) => {
    const headers = c.headers ? await c.headers() : undefined;
    const input = typeof c.input === "function" ? await c.input() : c.input;
    const watch = await watchTables(t.dataSource);
    const response = await graphql(
      t.app,
      `mutation($input: ${c.inputType}!) { ${c.mutation}(input: $input) { ${c.selection} ${PROBLEMS} } }`,
      { input },
      headers,
    );
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    const payload = response.data?.[c.mutation] as Record<string, unknown> & { problems: Problem[] };
    for (const [member, value] of Object.entries(payload)) {
      if (member === "problems") continue;
      expect([member, Array.isArray(value) ? value.length : value]).toEqual([member, Array.isArray(value) ? 0 : null]);
    }
    expect(payload.problems.map(({ field, value, reason }) => ({ field, value, reason }))).toEqual(c.expected);
    expect(payload.problems.every((problem) => problem.message.length > 0)).toBe(true);
    await watch.expectNothingWritten();
  });

  it("covers every mutation that takes an input, and each answers a payload with problems: [FieldProblem!]!", () => {
    const schema = buildTestSchema();
    const mutations = Object.values(schema.getMutationType()!.getFields()).filter((field) =>
      field.args.some((arg) => arg.name === "input"),
    );
    expect(mutations.map((field) => field.name).sort()).toEqual(cases.map((c) => c.mutation).sort());
    for (const field of mutations) {
      const payload = getNullableType(field.type);
      expect([field.name, isObjectType(payload)]).toEqual([field.name, true]);
      if (!isObjectType(payload)) continue;
      const problems = payload.getFields().problems?.type;
      expect([field.name, String(problems)]).toEqual([field.name, "[FieldProblem!]!"]);
      expect(problems && isNonNullType(problems) && isListType(problems.ofType)).toBe(true);
      expect(getNamedType(problems!).name).toBe("FieldProblem");
    }
  });

  it("the reasons are the domain's list, each with its description", () => {
    const reasonEnum = buildTestSchema().getType("FieldProblemReason");
    const values = (reasonEnum as GraphQLEnumType).getValues();
    const byName = ([a]: [string, unknown], [b]: [string, unknown]) => a.localeCompare(b);
    expect(values.map((value): [string, unknown] => [value.name, value.description]).sort(byName)).toEqual(
      Object.entries(PROBLEM_REASONS).sort(byName),
    );
  });
});

describe("the same message through REST (its error body unchanged) and in the GraphQL payload", () => {
  const payloadProblems = async (mutation: string, inputType: string, input: Record<string, unknown>) => {
    const response = await graphql(
      t.app,
      `mutation($input: ${inputType}!) { ${mutation}(input: $input) { ${PROBLEMS} } }`,
      { input },
    );
    return (response.data?.[mutation] as { problems: Problem[] }).problems;
  };

  it.each([
    [
      "createStatus colour",
      () => postRest(t.app, "statuses", { action: "create", group_id: g, doc: { status_name: "W", color: "green" } }),
      () => payloadProblems("createStatus", "CreateStatusInput", { groupId: g, name: "W", color: "green" }),
      [["doc.color", "input.color"]],
    ],
    [
      "createUser email",
      () => postRest(t.app, "users", { action: "create", group_id: g, doc: { main_email: "nope" } }),
      () => payloadProblems("createUser", "CreateUserInput", { groupId: g, mainEmail: "nope" }),
      [["doc.main_email", "input.mainEmail"]],
    ],
    [
      "addEmail emails[1].to",
      () =>
        postRest(t.app, "users", {
          action: "add_email",
          group_id: g,
          clogin_id: MAPLE.bill,
          doc: { email_list: [email, { ...email, to: "not-an-address" }] },
        }),
      () =>
        payloadProblems("addEmail", "AddEmailInput", {
          groupId: g,
          cloginId: MAPLE.bill,
          emails: [email, { ...email, to: "not-an-address" }],
        }),
      [["doc.email_list[1].to", "input.emails[1].to"]],
    ],
  ] as const)("%s", async (_name, viaRest, viaGraphql, paths) => {
    const rest = await viaRest();
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ success: false, error_code: "VALIDATION_FAILED" });
    const restErrors = rest.body.errors as { path: string; message: string }[];
    const problems = await viaGraphql();
    expect(restErrors.map((error) => error.path)).toEqual(paths.map(([restPath]) => restPath));
    expect(problems.map((problem) => problem.field)).toEqual(paths.map(([, graphqlPath]) => graphqlPath));
    expect(problems.map((problem) => problem.message)).toEqual(restErrors.map((error) => error.message));
    expect(rest.body.msg).toBe(`${restErrors[0].path} ${restErrors[0].message}.`);
  });
});

describe("what stays an error", () => {
  it("a rule that is not the input's (CONFLICT, FORBIDDEN) keeps its code and data: null for the field", async () => {
    const conflict = await graphql(
      t.app,
      `mutation { createStatus(input: { groupId: ${g}, name: "ACCEPTED", color: "#000000" }) { status { id } ${PROBLEMS} } }`,
    );
    expect(conflict.errors?.[0].extensions?.code).toBe("CONFLICT");
    const forbidden = await graphql(
      t.app,
      `mutation { createStatus(input: { groupId: 200000001, name: "X", color: "#000000" }) { status { id } ${PROBLEMS} } }`,
    );
    expect(forbidden.errors?.[0].extensions?.code).toBe("FORBIDDEN");
  });

  it("a variable that does not fit the schema's types is refused before anything runs (400)", async () => {
    const response = await graphql(
      t.app,
      `mutation($input: CreateStatusInput!) { createStatus(input: $input) { ${PROBLEMS} } }`,
      { input: { groupId: "not a number", name: "X", color: "#000000" } },
    );
    expect(response.status).toBe(400);
    expect(response.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });
});
