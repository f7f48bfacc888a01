import { compileQuery } from "graphql-jit";
import { getOperationAST, parse } from "graphql";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import { executionPathOf } from "../../src/graphql/execution/compiled-executor";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";
import { buildGraphqlSchema } from "../../src/graphql/schema";
import { createLogger } from "../../src/http/logger";
import { NESTED_USER_QUERY, USERS_PAGE_QUERY } from "../../bench/scenarios";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { testConfig } from "../support/test-config";

// Eligible queries run compiled by graphql-jit (compiled-executor.ts). They must answer exactly as
// graphql-js does: the same app on the same database with GRAPHQL_COMPILED_EXECUTION off is the
// reference, for reads, errors, fragments, aliases, directives and abstract types.

// Counted, to prove which app compiled (its module exports cannot be spied on).
jest.mock("graphql-jit", () => {
  const actual = jest.requireActual<typeof import("graphql-jit")>("graphql-jit");
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});
const compiles = compileQuery as jest.MockedFunction<typeof compileQuery>;

const pathOf = async (query: string) => {
  const schema = await buildGraphqlSchema();
  const document = parse(query);
  return executionPathOf(schema, document, getOperationAST(document)!);
};

describe("which operations run compiled", () => {
  it("queries whose variables are built-in scalars or enums", async () => {
    expect(await pathOf(NESTED_USER_QUERY)).toBe("compiled");
    expect(await pathOf(USERS_PAGE_QUERY)).toBe("compiled");
    expect(await pathOf(`{ project(groupId: 1) { name } }`)).toBe("compiled");
    expect(await pathOf(`query($id: ID!) { node(id: $id) { id } }`)).toBe("compiled");
  });

  it("not mutations, nor queries with input-object or custom-scalar variables (graphql-js coerces those)", async () => {
    expect(await pathOf(`mutation { __typename }`)).toBe("graphql-js");
    expect(await pathOf(`query($f: UserFilter) { users(groupId: 1, filter: $f) { totalCount } }`)).toBe("graphql-js");
    expect(await pathOf(`query($m: Money) { __typename }`)).toBe("graphql-js");
    expect(await pathOf(`query($x: NoSuchType) { __typename }`)).toBe("graphql-js");
  });

  it("not a query selecting nodes, whose items fail one by one (also through a fragment)", async () => {
    expect(await pathOf(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`)).toBe("graphql-js");
    expect(await pathOf(`query { ...F } fragment F on Query { nodes(ids: []) { id } }`)).toBe("graphql-js");
  });
});

let t: TestApp;
let reference: RegapiApp;
beforeAll(async () => {
  t = await startTestApp();
  reference = await createApp({
    dataSource: t.dataSource,
    logger: createLogger("silent"),
    config: testConfig({ graphqlIntrospection: true, graphqlCompiledExecution: false }),
  });
});
afterAll(async () => {
  await reference.stop();
  await t.close();
});
beforeEach(() => compiles.mockClear());

const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };
const userId = encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles });

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** 0: refused before execution (validation or cost limits), so nothing is compiled. */
  compiles?: number;
}

const CASES: Case[] = [
  { name: "the nested user read", query: NESTED_USER_QUERY, variables: { g: MAPLE.groupId, c: MAPLE.miles } },
  { name: "a users page with its total", query: USERS_PAGE_QUERY, variables: { g: MAPLE.groupId, n: 2 } },
  {
    name: "a page read backwards, with page info and cursors",
    query: `query($g: Int!) { users(groupId: $g, last: 2) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { cloginId status { name } } } } }`,
    variables: { g: MAPLE.groupId },
  },
  {
    name: "aliases, @include and @skip by variables, __typename",
    query: `query($g: Int!, $c: Int!, $withForms: Boolean!, $noTags: Boolean!) {
      a: user(groupId: $g, cloginId: $c) { __typename cloginId forms @include(if: $withForms) { id completed } tags @skip(if: $noTags) { name } }
      b: user(groupId: $g, cloginId: $c) { meta: metaInfo { totalForms } } }`,
    variables: { g: MAPLE.groupId, c: MAPLE.miles, withForms: true, noTags: true },
  },
  {
    name: "an abstract type through a fragment (node)",
    query: `query($id: ID!) { node(id: $id) { __typename id ... on User { cloginId metaInfo { id totalForms } } } }`,
    variables: { id: userId },
  },
  {
    name: "a project another organization owns (FORBIDDEN with its path)",
    query: `query($g: Int!) { users(groupId: $g, first: 1) { totalCount } }`,
    variables: { g: MAPLE.groupId },
    headers: otherHeaders,
  },
  {
    name: "a user who is not registered (NOT_FOUND) next to one who is",
    query: `query($g: Int!) { missing: user(groupId: $g, cloginId: 1) { cloginId } found: user(groupId: $g, cloginId: ${MAPLE.miles}) { cloginId } }`,
    variables: { g: MAPLE.groupId },
  },
  {
    name: "a lookup that fails alone: a null user with its error next to the projects (issue 24)",
    query: `query($g: Int!) { projects { groupId } user(groupId: $g, cloginId: 1) { name } }`,
    variables: { g: MAPLE.groupId },
  },
  {
    name: "project catalogues: statuses, forms with fields and choices, a page of tags (issue 24)",
    query: `query($g: Int!) { project(groupId: $g) { statuses { id name } forms { id fields { identifier choices { value label labelHtml } } }
      tags(first: 1) { edges { cursor node { id name } } pageInfo { hasNextPage endCursor } } } }`,
    variables: { g: MAPLE.groupId },
  },
  {
    name: "a tag cursor that is not one: the error at project.tags, the project answered",
    query: `query($g: Int!, $a: String) { project(groupId: $g) { name tags(after: $a) { nodes { id } } } }`,
    variables: { g: MAPLE.groupId, a: "not-a-cursor" },
  },
  {
    name: "a variable that does not coerce (graphql-js's message)",
    query: `query($g: Int!) { users(groupId: $g, first: 2) { totalCount } }`,
    variables: { g: "not a number" },
  },
  {
    name: "a first beyond the page limit (refused before execution)",
    query: `query($g: Int!) { users(groupId: $g, first: 100000) { totalCount } }`,
    variables: { g: MAPLE.groupId },
    compiles: 0,
  },
];

describe("compiled queries answer as graphql-js does", () => {
  it.each(CASES)("$name", async ({ query, variables = {}, headers = mapleHeaders, compiles: compiled = 1 }) => {
    const send = (app: RegapiApp) =>
      request(app.app).post("/graphql").set(headers).set("Content-Type", "application/json").send({ query, variables });
    const expected = await send(reference);
    expect(compiles).not.toHaveBeenCalled();
    // The test app compiles a document on its first run (graphqlCompileOnFirstRun).
    const actual = await send(t.regapi);
    expect({ status: actual.status, body: actual.body }).toEqual({ status: expected.status, body: expected.body });
    // The answer came from the compiled query.
    expect(compiles).toHaveBeenCalledTimes(compiled);
  });

  it("a registrant session's portal read, with FORBIDDEN fields at their paths (issue 24)", async () => {
    const loggedIn = await postRest(t.app, "users", {
      action: "login",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
      doc: {},
    });
    const redeemed = await request(t.app)
      .post("/reg/api2/session/")
      .set("Content-Type", "application/json")
      .send({ user_token: loggedIn.body.user_token });
    const bearer = { Authorization: `Bearer ${redeemed.body.session_token as string}` };
    const query = `query { me { name emails { subject } project { currency statuses { name } tags { nodes { name } }
      forms { formId fields { choices { label } } } products { pId } } } }`;
    const send = (app: RegapiApp) =>
      request(app.app).post("/graphql").set(bearer).set("Content-Type", "application/json").send({ query });
    const expected = await send(reference);
    expect(compiles).not.toHaveBeenCalled();
    const actual = await send(t.regapi);
    expect({ status: actual.status, body: actual.body }).toEqual({ status: expected.status, body: expected.body });
    expect(compiles).toHaveBeenCalledTimes(1);
    expect(actual.body.data.me.project.currency).toBe("USD");
    expect(actual.body.errors.map((error: { path: unknown }) => error.path)).toEqual([
      ["me", "emails"],
      ["me", "project", "statuses"],
      ["me", "project", "tags"],
    ]);
  });

  it("as deployed, a document is compiled the second time it is run, and the compiled query is reused after", async () => {
    const deployed = await createApp({
      dataSource: t.dataSource,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection: true }),
    });
    const query = `query($g: Int!) { users(groupId: $g, first: 3) { edges { node { cloginId } } } }`;
    const send = () =>
      request(deployed.app)
        .post("/graphql")
        .set(mapleHeaders)
        .set("Content-Type", "application/json")
        .send({ query, variables: { g: MAPLE.groupId } });
    const first = await send();
    expect(compiles).not.toHaveBeenCalled();
    const second = await send();
    const third = await send();
    expect(compiles).toHaveBeenCalledTimes(1);
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
    expect(first.body.data.users.edges).toHaveLength(3);
    await deployed.stop();
  });
});
