import { testFixture } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 35 item 5: users pages in the order asked (uid, application date, updated at, name;
// ascending or descending), with cursors that belong to their order, and the tag filter.

const ORDER_GROUP = 100909081;

// Application dates with a tie (users 3 and 5), out of uid order.
const APPLIED = [
  "2026-03-05 10:00:00",
  "2026-03-01 09:00:00",
  "2026-03-03 12:00:00",
  "2026-03-09 08:00:00",
  "2026-03-03 12:00:00",
  "2026-02-20 17:30:00",
  "2026-03-07 11:15:00",
];
const cloginIdOf = (i: number) => 410000001 + i;

// Names out of uid order, with a tie but for case (users 1 and 3); users 0 and 2 are renamed below.
const NAMES = [
  ["Zoe", "Quinn"],
  ["adam", "Best"],
  ["Mia", "Fox"],
  ["Adam", "best"],
  ["Lena", "Ng"],
  ["bob", "Stone"],
  ["Karl", "Ek"],
];

function orderFixture(): unknown {
  const fixture = testFixture() as { organizations: { projects: Record<string, unknown>[] }[] };
  fixture.organizations[0].projects.push({
    id: ORDER_GROUP,
    name: "Order",
    tags: [
      { id: 81, name: "Early bird" },
      { id: 82, name: "Scholarship" },
    ],
    users: APPLIED.map((applicationDate, i) => ({
      cloginId: cloginIdOf(i),
      username: `order-${i}@order.test`,
      firstName: NAMES[i][0],
      lastName: NAMES[i][1],
      applicationDate,
      tagIds: i % 3 === 0 ? [81] : i === 4 ? [81, 82] : [],
    })),
  });
  return fixture;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: orderFixture() });
  // Two later changes, so that updated-at order differs from the others.
  for (const i of [2, 0]) {
    const res = await postRest(t.app, "users", {
      action: "update",
      group_id: ORDER_GROUP,
      clogin_id: String(cloginIdOf(i)),
      doc: { last_name: `Changed${i}` },
    });
    expect(res.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
afterAll(() => t.close());

interface Node {
  uid: number;
  cloginId: number;
  name: string;
  metaInfo: { applicationDate: string; updatedAt: string };
}
interface OrderPage {
  users: {
    totalCount: number;
    edges: { cursor: string; node: Node }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
}

const USERS = `query($g: Int!, $orderBy: UserOrder, $filter: UserFilter, $first: Int, $after: String, $last: Int, $before: String) {
  users(groupId: $g, orderBy: $orderBy, filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    totalCount edges { cursor node { uid cloginId name metaInfo { applicationDate updatedAt } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

const page = (variables: Record<string, unknown>) =>
  graphqlData<OrderPage>(t.app, USERS, { g: ORDER_GROUP, ...variables });

type Field = "UID" | "APPLICATION_DATE" | "UPDATED_AT" | "NAME";
const ORDERS: { field: Field; direction: "ASC" | "DESC" }[] = (
  ["UID", "APPLICATION_DATE", "UPDATED_AT", "NAME"] as const
).flatMap((field) => [
  { field, direction: "ASC" as const },
  { field, direction: "DESC" as const },
]);

/** The users in an order, computed here from what they are (the uid breaking ties). */
function expectedOrder(nodes: Node[], field: Field, direction: "ASC" | "DESC"): number[] {
  const sign = direction === "ASC" ? 1 : -1;
  if (field === "NAME") {
    // ASCII names: every database's order without case is this one.
    const name = (node: Node) => node.name.toLowerCase();
    return [...nodes]
      .sort((a, b) => sign * (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a.uid - b.uid))
      .map((node) => node.cloginId);
  }
  const key = (node: Node) =>
    field === "UID"
      ? 0
      : Date.parse(field === "APPLICATION_DATE" ? node.metaInfo.applicationDate : node.metaInfo.updatedAt);
  return [...nodes].sort((a, b) => sign * (key(a) - key(b) || a.uid - b.uid)).map((node) => node.cloginId);
}

let everyone: Node[];
beforeAll(async () => {
  everyone = (await page({ first: 100 })).users.edges.map((edge) => edge.node);
  expect(everyone).toHaveLength(APPLIED.length);
});

describe("users in the order asked", () => {
  it.each(ORDERS)("lists every user in $field $direction order, the uid breaking ties", async (orderBy) => {
    const { users } = await page({ orderBy, first: 100 });
    expect(users.totalCount).toBe(APPLIED.length);
    expect(users.edges.map((edge) => edge.node.cloginId)).toEqual(
      expectedOrder(everyone, orderBy.field, orderBy.direction),
    );
  });

  it("orders differently by each key (the fixture tells them apart)", () => {
    const lists = ORDERS.map((order) => expectedOrder(everyone, order.field, order.direction).join());
    expect(new Set(lists).size).toBe(ORDERS.length);
  });

  it.each(ORDERS)("walks $field $direction forward and backward two at a time, each user once", async (orderBy) => {
    const expected = expectedOrder(everyone, orderBy.field, orderBy.direction);
    const forward: number[] = [];
    let after: string | null = null;
    for (let n = 0; n < 10; n++) {
      const { users }: OrderPage = await page({ orderBy, first: 2, after });
      forward.push(...users.edges.map((edge) => edge.node.cloginId));
      if (!users.pageInfo.hasNextPage) break;
      after = users.pageInfo.endCursor;
    }
    expect(forward).toEqual(expected);

    const backward: number[] = [];
    let before: string | null = null;
    for (let n = 0; n < 10; n++) {
      const { users }: OrderPage = await page({ orderBy, last: 2, before });
      backward.unshift(...users.edges.map((edge) => edge.node.cloginId));
      if (!users.pageInfo.hasPreviousPage) break;
      before = users.pageInfo.startCursor;
    }
    expect(backward).toEqual(expected);
  });

  it("puts a renamed user in its new place in NAME order, and a cursor keeps its place", async () => {
    const orderBy = { field: "NAME", direction: "ASC" };
    expect(everyone.find((node) => node.cloginId === cloginIdOf(2))?.name).toBe("Mia Changed2");
    const first = (await page({ orderBy, first: 3 })).users;
    expect(first.edges.map((edge) => edge.node.name)).toEqual(["adam Best", "Adam best", "bob Stone"]);
    const renamed = await postRest(t.app, "users", {
      action: "update",
      group_id: ORDER_GROUP,
      clogin_id: String(cloginIdOf(6)),
      doc: { first_name: "Aaron" },
    });
    expect(renamed.status).toBe(200);
    const rest = (await page({ orderBy, first: 100, after: first.pageInfo.endCursor })).users;
    expect(rest.edges.map((edge) => edge.node.name)).toEqual(["Lena Ng", "Mia Changed2", "Zoe Changed0"]);
    const again = (await page({ orderBy, first: 1 })).users;
    expect(again.edges.map((edge) => edge.node.name)).toEqual(["Aaron Ek"]);
    // Back as it was, for the other tests.
    await postRest(t.app, "users", {
      action: "update",
      group_id: ORDER_GROUP,
      clogin_id: String(cloginIdOf(6)),
      doc: { first_name: "Karl" },
    });
  });

  it("refuses a cursor of another order, naming both orders, and one that is not a cursor", async () => {
    const { users } = await page({ orderBy: { field: "APPLICATION_DATE", direction: "DESC" }, first: 2 });
    const cursor = users.pageInfo.endCursor;
    const other = await graphql(t.app, USERS, { g: ORDER_GROUP, first: 2, after: cursor });
    expect(other.errors).toMatchObject([
      {
        message:
          "after is a cursor of the users ordered by APPLICATION_DATE DESC, not of this page's order (UID ASC); pass the orderBy the cursor's page had.",
        extensions: { code: "BAD_USER_INPUT" },
      },
    ]);
    const uidCursor = (await page({ first: 1 })).users.pageInfo.endCursor;
    const reversed = await graphql(t.app, USERS, {
      g: ORDER_GROUP,
      orderBy: { field: "UID", direction: "DESC" },
      last: 1,
      before: uidCursor,
    });
    expect(reversed.errors?.[0]?.message).toBe(
      "before is a cursor of the users ordered by UID ASC, not of this page's order (UID DESC); pass the orderBy the cursor's page had.",
    );
    const forged = Buffer.from("user~applied-desc:12.x", "utf8").toString("base64");
    const bad = await graphql(t.app, USERS, {
      g: ORDER_GROUP,
      orderBy: { field: "APPLICATION_DATE", direction: "DESC" },
      after: forged,
    });
    expect(bad.errors?.[0]?.message).toBe("after is not a cursor returned by this API.");
  });

  it("applies the filters in the order asked, totalCount counting them", async () => {
    const orderBy = { field: "APPLICATION_DATE", direction: "DESC" };
    const tagged = (await page({ orderBy, filter: { tagId: 81 }, first: 100 })).users;
    const withTag = everyone.filter((_, i) => i % 3 === 0 || i === 4);
    expect(tagged.totalCount).toBe(withTag.length);
    expect(tagged.edges.map((edge) => edge.node.cloginId)).toEqual(expectedOrder(withTag, "APPLICATION_DATE", "DESC"));
    const scholarship = (await page({ filter: { tagId: 82 }, first: 100 })).users;
    expect(scholarship.totalCount).toBe(1);
    expect(scholarship.edges.map((edge) => edge.node.cloginId)).toEqual([cloginIdOf(4)]);
    const searched = (await page({ orderBy, filter: { search: "changed" }, first: 100 })).users;
    expect(searched.totalCount).toBe(2);
    expect(searched.edges.map((edge) => edge.node.cloginId)).toEqual(
      expectedOrder(
        everyone.filter((node) => [cloginIdOf(0), cloginIdOf(2)].includes(node.cloginId)),
        "APPLICATION_DATE",
        "DESC",
      ),
    );
  });
});
