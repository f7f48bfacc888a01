import request from "supertest";
import { Payment } from "../../src/entities";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { FOREIGN_ORG, MAPLE, OTHER } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { graphql, graphqlData } from "../support/graphql";
import { uidOf } from "../support/rows";
import { startTestApp, type TestApp } from "../support/test-app";
import { STATEMENT_COUNTING } from "../support/test-config";

// Global object identification: every object with identity has an opaque Node id, and
// node/nodes refetch it with the authorization of the field that returned it.

const EXTRA_USERS = { first: 710_000, count: 7 };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    fixture: labFixtureWithUsers(EXTRA_USERS.first, EXTRA_USERS.count, "page"),
    config: STATEMENT_COUNTING,
  });
});
afterAll(() => t.close());

const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };
const NOT_VISIBLE = { message: "No object with this id is visible to you.", code: "NOT_FOUND" };

const EVERYTHING = `query($g: Int!, $c: Int!) { user(groupId: $g, cloginId: $c) {
  __typename id
  metaInfo { __typename id status { __typename id } }
  status { __typename id }
  utm { __typename id }
  tags { __typename id }
  emails { __typename id }
  cartLines { __typename id }
  payments { __typename id }
  fieldValues { __typename id field { __typename id } }
  forms { __typename id form { __typename id fields { __typename id } } }
  project { __typename id categories { __typename id } products { __typename id } }
} }`;

type Ided = { __typename: string; id: string };

/** Every (typename, id) in a response, depth first. */
function idsIn(value: unknown, found: Ided[] = []): Ided[] {
  if (Array.isArray(value)) value.forEach((item) => idsIn(item, found));
  else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (typeof record.id === "string" && typeof record.__typename === "string") {
      found.push({ __typename: record.__typename, id: record.id });
    }
    Object.values(record).forEach((member) => idsIn(member, found));
  }
  return found;
}

const nodeQuery = `query($id: ID!) { node(id: $id) { __typename id } }`;

async function nodeAnswer(id: string, headers?: Record<string, string>) {
  const response = await graphql<{ node: Ided | null }>(t.app, nodeQuery, { id }, headers);
  return {
    node: response.data?.node ?? null,
    errors: (response.errors ?? []).map((error) => ({ message: error.message, code: error.extensions?.code })),
  };
}

describe("Node ids", () => {
  beforeAll(async () => {
    // One of each user-owned kind: an email record, a cart line and a payment.
    await graphqlData(
      t.app,
      `mutation($g: Int!, $c: Int!) {
        addEmail(input: {groupId: $g, cloginId: $c, emails: [{from: "a@maple.test", to: "b@maple.test", subject: "S", body: "B"}]}) { notices }
        addProduct(input: {groupId: $g, cloginId: $c, productList: [{pId: 77, q: 1}]}) { cartIds } }`,
      { g: MAPLE.groupId, c: MAPLE.miles },
    );
    const uid = await uidOf(t.dataSource, MAPLE.groupId, MAPLE.miles);
    await t.dataSource
      .getRepository(Payment)
      .insert({ registrationId: uid, amountCents: 1000, paidAt: new Date("2026-05-01T10:00:00Z"), method: "card" });
  });

  it("covers every type with identity, is stable across reads and unique across types", async () => {
    const read = () => graphqlData(t.app, EVERYTHING, { g: MAPLE.groupId, c: MAPLE.miles });
    const first = idsIn(await read());
    expect(idsIn(await read())).toEqual(first);
    expect(new Set(first.map((node) => node.__typename))).toEqual(
      new Set([
        "User",
        "MetaInfo",
        "Status",
        "Utm",
        "Tag",
        "EmailRecord",
        "CartLine",
        "Payment",
        "FieldValue",
        "FormField",
        "UserForm",
        "Form",
        "Project",
        "ProductCategory",
        "Product",
      ]),
    );
    // The same object read twice (e.g. the status under the user and under its meta info) has one id;
    // different objects never share one.
    const typeOfId = new Map<string, string>();
    for (const node of first) {
      expect(typeOfId.get(node.id) ?? node.__typename).toBe(node.__typename);
      typeOfId.set(node.id, node.__typename);
    }
    const user = first[0];
    const metaInfo = first.find((node) => node.__typename === "MetaInfo")!;
    expect(user.id).toBe(encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles }));
    expect(metaInfo.id).not.toBe(user.id);
  });

  it("node and nodes refetch every one of them as the same type and id", async () => {
    const all = idsIn(await graphqlData(t.app, EVERYTHING, { g: MAPLE.groupId, c: MAPLE.miles }));
    const unique = [...new Map(all.map((node) => [node.id, node])).values()];
    const { nodes } = await graphqlData<{ nodes: Ided[] }>(
      t.app,
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`,
      { ids: unique.map((node) => node.id) },
    );
    expect(nodes).toEqual(unique);
    for (const node of unique.slice(0, 3)) expect((await nodeAnswer(node.id)).node).toEqual(node);
  });

  it("reads fields through a fragment, as a refetch query does", async () => {
    const id = encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    const data = await graphqlData<{ node: Record<string, unknown> }>(
      t.app,
      `query($id: ID!) { node(id: $id) { id ... on User { cloginId metaInfo { id completedForms } } } }`,
      { id },
    );
    expect(data.node).toMatchObject({ id, cloginId: MAPLE.miles, metaInfo: { completedForms: expect.any(Number) } });
    const project = encodeNodeId("Project", { groupId: MAPLE.groupId });
    const totals = await graphqlData<{ node: { groupTotals: { totalUsers: number } } }>(
      t.app,
      `query($id: ID!) { node(id: $id) { ... on Project { groupTotals { totalUsers } } } }`,
      { id: project },
    );
    expect(totals.node.groupTotals.totalUsers).toBeGreaterThan(0);
  });
});

describe("node authorization", () => {
  const foreignUser = FOREIGN_ORG.projects[0].users[0].cloginId;
  const foreignIds = [
    encodeNodeId("User", { groupId: OTHER.groupId, cloginId: foreignUser }),
    encodeNodeId("MetaInfo", { groupId: OTHER.groupId, cloginId: foreignUser }),
    encodeNodeId("Project", { groupId: OTHER.groupId }),
    encodeNodeId("Form", { groupId: OTHER.groupId, formId: 901 }),
    encodeNodeId("FormField", { groupId: OTHER.groupId, identifier: "f_901_1" }),
    encodeNodeId("Status", { groupId: OTHER.groupId, statusId: 90 }),
  ];
  const missingIds = [
    encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: 999_999 }),
    encodeNodeId("User", { groupId: 999_999, cloginId: MAPLE.miles }),
    encodeNodeId("UserForm", { groupId: MAPLE.groupId, cloginId: MAPLE.miles, formId: 999 }),
    encodeNodeId("Form", { groupId: MAPLE.groupId, formId: 901 }),
    encodeNodeId("Status", { groupId: MAPLE.groupId, statusId: 90 }),
    encodeNodeId("Tag", { groupId: MAPLE.groupId, tagId: 999 }),
    encodeNodeId("Product", { groupId: MAPLE.groupId, pId: 999 }),
  ];

  it("answers another organization's ids exactly as missing ones: NOT_FOUND, same message", async () => {
    for (const id of [...foreignIds, ...missingIds]) {
      expect(await nodeAnswer(id)).toEqual({ node: null, errors: [NOT_VISIBLE] });
    }
  });

  it("works both ways: the other organization cannot read Maple's objects", async () => {
    const mapleUser = encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    expect((await nodeAnswer(mapleUser)).node).toEqual({ __typename: "User", id: mapleUser });
    expect(await nodeAnswer(mapleUser, otherHeaders)).toEqual({ node: null, errors: [NOT_VISIBLE] });
    expect((await nodeAnswer(foreignIds[0], otherHeaders)).node).toEqual({ __typename: "User", id: foreignIds[0] });
  });

  it("nodes answers each id on its own: readable ones, and null with a NOT_FOUND at its index", async () => {
    const own = encodeNodeId("Project", { groupId: MAPLE.groupId });
    const response = await graphql<{ nodes: (Ided | null)[] }>(
      t.app,
      `
        query ($ids: [ID!]!) {
          nodes(ids: $ids) {
            __typename
            id
          }
        }
      `,
      { ids: [own, foreignIds[2], missingIds[0]] },
    );
    expect(response.data?.nodes).toEqual([{ __typename: "Project", id: own }, null, null]);
    // Errors come in the order the ids were answered; their paths say which is which.
    const errors = response.errors?.map((error) => [error.path, error.extensions?.code]);
    expect(errors?.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      [["nodes", 1], "NOT_FOUND"],
      [["nodes", 2], "NOT_FOUND"],
    ]);
  });

  it("refuses ids it did not issue as BAD_USER_INPUT", async () => {
    for (const id of [
      "",
      "nope",
      Buffer.from("User:1").toString("base64"),
      Buffer.from("Nope:1:2").toString("base64"),
    ]) {
      const response = await graphql(t.app, nodeQuery, { id });
      expect(response.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    }
  });
});

describe("node for a registrant session", () => {
  async function sessionOf(cloginId: number): Promise<string> {
    const loggedIn = await postRest(t.app, "users", {
      action: "login",
      group_id: LAB.groupId,
      clogin_id: cloginId,
      doc: {},
    });
    const redeemed = await request(t.app)
      .post("/reg/api2/session/")
      .set("Content-Type", "application/json")
      .send({ user_token: loggedIn.body.user_token });
    return redeemed.body.session_token as string;
  }

  it("reaches its own registration's objects only; everything else is NOT_FOUND like a missing id", async () => {
    const bearer = { Authorization: `Bearer ${await sessionOf(LAB.cy)}` };
    const own = (type: "User" | "MetaInfo" | "Utm") => encodeNodeId(type, { groupId: LAB.groupId, cloginId: LAB.cy });
    for (const type of ["User", "MetaInfo", "Utm"] as const) {
      expect(await nodeAnswer(own(type), bearer)).toEqual({ node: { __typename: type, id: own(type) }, errors: [] });
    }
    const ownForm = encodeNodeId("UserForm", { groupId: LAB.groupId, cloginId: LAB.cy, formId: 501 });
    expect((await nodeAnswer(ownForm, bearer)).node).toEqual({ __typename: "UserForm", id: ownForm });
    // What me.project shows a registrant (issue 24): its project, the forms it may fill, their fields.
    const ownProject = [
      encodeNodeId("Project", { groupId: LAB.groupId }),
      encodeNodeId("Form", { groupId: LAB.groupId, formId: 501 }),
      encodeNodeId("FormField", { groupId: LAB.groupId, identifier: "f_501_8" }),
      encodeNodeId("Product", { groupId: LAB.groupId, pId: LAB.products.kit }),
    ];
    for (const id of ownProject) expect((await nodeAnswer(id, bearer)).node).toMatchObject({ id });

    const refused = [
      encodeNodeId("User", { groupId: LAB.groupId, cloginId: LAB.ann }),
      encodeNodeId("MetaInfo", { groupId: LAB.groupId, cloginId: LAB.ann }),
      encodeNodeId("User", { groupId: LAB.groupId, cloginId: 999_999 }),
      encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles }),
      encodeNodeId("Project", { groupId: MAPLE.groupId }),
      encodeNodeId("Form", { groupId: MAPLE.groupId, formId: 301 }),
      // An admin-only form and its field, the organization's statuses and tags.
      encodeNodeId("Form", { groupId: LAB.groupId, formId: 503 }),
      encodeNodeId("FormField", { groupId: LAB.groupId, identifier: "f_503_1" }),
      encodeNodeId("Status", { groupId: MAPLE.groupId, statusId: 9 }),
      encodeNodeId("Tag", { groupId: MAPLE.groupId, tagId: 3 }),
      encodeNodeId("EmailRecord", { groupId: LAB.groupId, cloginId: LAB.cy, emailId: 1 }),
    ];
    for (const id of refused) expect(await nodeAnswer(id, bearer)).toEqual({ node: null, errors: [NOT_VISIBLE] });
  });

  it("keeps the registrant's field limits under node: no parent or children of its User", async () => {
    const bearer = { Authorization: `Bearer ${await sessionOf(LAB.cy)}` };
    const response = await graphql(
      t.app,
      `
        query ($id: ID!) {
          node(id: $id) {
            ... on User {
              children {
                cloginId
              }
            }
          }
        }
      `,
      { id: encodeNodeId("User", { groupId: LAB.groupId, cloginId: LAB.cy }) },
      bearer,
    );
    expect(response.errors?.[0].extensions?.code).toBe("FORBIDDEN");
  });
});

describe("users: backward pagination", () => {
  const PAGE = `query($g: Int!, $first: Int, $after: String, $last: Int, $before: String) {
    users(groupId: $g, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { id cloginId } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  type Page = {
    users: {
      edges: { cursor: string; node: { id: string; cloginId: number } }[];
      pageInfo: {
        hasNextPage: boolean;
        hasPreviousPage: boolean;
        startCursor: string | null;
        endCursor: string | null;
      };
    };
  };
  const page = (variables: Record<string, unknown>) =>
    graphqlData<Page>(t.app, PAGE, { g: LAB.groupId, ...variables }).then((data) => data.users);

  it("walks the list backward with last/before and meets the forward order", async () => {
    const everyone = (await page({ first: 100 })).edges.map((edge) => edge.node.cloginId);
    expect(everyone.length).toBeGreaterThan(EXTRA_USERS.count);

    const backward: number[] = [];
    let before: string | null = null;
    let pages = 0;
    for (;;) {
      const current = await page({ last: 3, before });
      pages += 1;
      backward.unshift(...current.edges.map((edge) => edge.node.cloginId));
      expect(current.pageInfo.hasNextPage).toBe(before !== null);
      if (!current.pageInfo.hasPreviousPage) break;
      before = current.pageInfo.startCursor;
    }
    expect(backward).toEqual(everyone);
    expect(pages).toBe(Math.ceil(everyone.length / 3));
  });

  it("reads the last page, then forward from its start cursor's predecessor", async () => {
    const last = await page({ last: 2 });
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const everyone = (await page({ first: 100 })).edges.map((edge) => edge.node.cloginId);
    expect(last.edges.map((edge) => edge.node.cloginId)).toEqual(everyone.slice(-2));
    const between = await page({
      first: 100,
      after: (await page({ first: 1 })).pageInfo.endCursor,
      before: last.pageInfo.startCursor,
    });
    expect(between.edges.map((edge) => edge.node.cloginId)).toEqual(everyone.slice(1, -2));
  });

  it("defaults to 20 forward; first with last, or a bad before cursor, is BAD_USER_INPUT", async () => {
    expect((await page({})).edges.length).toBe(Math.min(20, (await page({ first: 100 })).edges.length));
    const both = await graphql(t.app, PAGE, { g: LAB.groupId, first: 2, last: 2 });
    expect(both.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const badCursor = await graphql(t.app, PAGE, { g: LAB.groupId, last: 2, before: "nope" });
    expect(badCursor.errors?.[0].extensions).toMatchObject({ code: "BAD_USER_INPUT" });
    const tooMany = await graphql(t.app, PAGE, { g: LAB.groupId, last: 101 });
    expect(tooMany.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });
});

describe("statements: node and backward pages cost what their plain forms cost", () => {
  const SELECTION = `cloginId metaInfo { completedForms status { name } } forms { completed form { formId fields { identifier } } }
    fieldValues { text field { identifier } } tags { name } children { cloginId metaInfo { totalForms } }`;

  it("node(id) of a user reads through the same loaders as user(groupId, cloginId)", async () => {
    const variables = { g: MAPLE.groupId, c: MAPLE.miles };
    const direct = await t.countStatements(() =>
      graphqlData(t.app, `query($g: Int!, $c: Int!) { user(groupId: $g, cloginId: $c) { ${SELECTION} } }`, variables),
    );
    const id = encodeNodeId("User", { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    const viaNode = await t.countStatements(() =>
      graphqlData<{ node: unknown }>(t.app, `query($id: ID!) { node(id: $id) { ... on User { ${SELECTION} } } }`, {
        id,
      }),
    );
    expect(viaNode.result.node).toEqual((direct.result as { user: unknown }).user);
    expect(viaNode.statements).toBe(direct.statements);
  });

  it("a backward page costs the statements of a forward page", async () => {
    const page = (args: string) =>
      t.countStatements(() =>
        graphqlData(
          t.app,
          `{ users(groupId: ${LAB.groupId}, ${args}) { edges { node { cloginId metaInfo { name } } } } }`,
        ),
      );
    const forward = await page("first: 5");
    const backward = await page("last: 5");
    expect(backward.statements).toBe(forward.statements);
  });
});
