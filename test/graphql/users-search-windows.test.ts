import { foldedWordsOf } from "../../src/common/search-text";
import { SEARCH_WINDOWS } from "../../src/data/user-page.data";
import { testFixture } from "../fixtures/test-fixture";
import { graphqlData } from "../support/graphql";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 35 item 5: a search alone walks a bounded window of the page's order and tests each
// document, goes to the full-text index when the window holds less than a page, reads the word
// table on MySQL/MariaDB (uid and name orders; bounded windows of each word for several words),
// and counts by a sample of the project when counting exactly would be too dear
// (totalCountEstimated). With the windows made small, every way is taken on this small project,
// and each must find what the matching rule finds (docs/graphql.md, "Search"), in every order,
// forward and backward.

const GROUP = 100909082;
const FIRST = ["Ada", "Bob", "Cyd", "Dee", "Eve", "Zoë"];
const USERS = Array.from({ length: 30 }, (_, i) => ({
  cloginId: 420000001 + i,
  firstName: FIRST[i % FIRST.length],
  lastName: i === 17 ? "Quillfeather" : i % 2 === 0 ? "Jones" : i % 3 === 0 ? "Jonsson" : "Smith",
  username: `u${i}@site${i % 4}.test`,
  // Dates out of uid order, with ties.
  applicationDate: `2026-03-${String(1 + ((i * 7) % 11)).padStart(2, "0")} 10:00:00`,
}));

function searchFixture(): unknown {
  const fixture = testFixture() as { organizations: { projects: Record<string, unknown>[] }[] };
  fixture.organizations[0].projects.push({
    id: GROUP,
    name: "Search windows",
    users: USERS.map((user) => ({ ...user, mainEmail: user.username })),
  });
  return fixture;
}

let t: TestApp;
const defaults = { ...SEARCH_WINDOWS };
beforeAll(async () => {
  t = await startTestApp({ fixture: searchFixture() });
});
afterAll(async () => {
  Object.assign(SEARCH_WINDOWS, defaults);
  await t.close();
});

interface Page {
  users: {
    totalCount: number;
    totalCountEstimated: boolean;
    edges: { node: { cloginId: number } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
}

const QUERY = `query($g: Int!, $filter: UserFilter, $orderBy: UserOrder, $first: Int, $after: String, $last: Int, $before: String) {
  users(groupId: $g, filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
    totalCount totalCountEstimated edges { node { cloginId } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

const read = (vars: Record<string, unknown>) => graphqlData<Page>(t.app, QUERY, { g: GROUP, ...vars });

/** Who the rule finds: every word starts a word of the user's names, username or email. */
function matches(search: string): Set<number> {
  const words = foldedWordsOf(search).filter((word) => word.length >= 3);
  return new Set(
    USERS.filter((user) => {
      const own = foldedWordsOf(`${user.firstName} ${user.lastName} ${user.username}`);
      return words.every((word) => own.some((word2) => word2.startsWith(word)));
    }).map((user) => user.cloginId),
  );
}

const ORDERS = [
  null,
  { field: "UID", direction: "DESC" },
  { field: "NAME" },
  { field: "NAME", direction: "DESC" },
  { field: "APPLICATION_DATE" },
  { field: "APPLICATION_DATE", direction: "DESC" },
];
const SEARCHES = ["jones", "jon", "ada jones", "zoe jonsson", "quillfeather", "ZOË", "site2 eve", "zyxwv"];

/** Every user in `orderBy`'s order, read without a search. */
async function inOrder(orderBy: unknown): Promise<number[]> {
  return (await read({ orderBy, first: 100 })).users.edges.map((edge) => edge.node.cloginId);
}

/** A search's users in `orderBy`, read in pages of `size`, forward then backward; checks the pages' flags. */
async function pagedThrough(search: string, orderBy: unknown, size: number): Promise<[number[], number[]]> {
  const forward: number[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 40; pages++) {
    const { users }: Page = await read({ filter: { search }, orderBy, first: size, after });
    forward.push(...users.edges.map((edge) => edge.node.cloginId));
    if (!users.pageInfo.hasNextPage) break;
    expect(users.edges).toHaveLength(size);
    after = users.pageInfo.endCursor;
  }
  const backward: number[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 40; pages++) {
    const { users }: Page = await read({ filter: { search }, orderBy, last: size, before });
    backward.unshift(...users.edges.map((edge) => edge.node.cloginId));
    if (!users.pageInfo.hasPreviousPage) break;
    before = users.pageInfo.startCursor;
  }
  return [forward, backward];
}

describe("a search alone, by windows, index and sample", () => {
  it.each([
    ["windows larger than the project", { uidWalk: 2000, orderWalk: 1000, countSample: 2000, indexDocuments: 5000 }],
    ["windows of 3 documents, a sample of 8", { uidWalk: 3, orderWalk: 3, countSample: 8, indexDocuments: 4 }],
    [
      "windows of 1 document, the index for any word",
      { uidWalk: 1, orderWalk: 1, countSample: 8, indexDocuments: 100 },
    ],
    [
      "word windows of 1 registration, MySQL/MariaDB's word table for every word",
      { uidWalk: 1, orderWalk: 1, countSample: 8, indexDocuments: 0, longerWords: 100, wordWindow: 1 },
    ],
    [
      "word windows of 2 registrations, the word table only for words without common longer ones",
      { uidWalk: 2, orderWalk: 2, countSample: 8, indexDocuments: 0, longerWords: 1, wordWindow: 2 },
    ],
  ])("finds what the rule finds in every order, forward and backward (%s)", async (_, windows) => {
    Object.assign(SEARCH_WINDOWS, windows);
    for (const orderBy of ORDERS) {
      const all = await inOrder(orderBy);
      for (const search of SEARCHES) {
        const expected = all.filter((cloginId) => matches(search).has(cloginId));
        for (const size of [2, 5]) {
          const [forward, backward] = await pagedThrough(search, orderBy, size);
          expect({ search, orderBy, size, forward }).toEqual({ search, orderBy, size, forward: expected });
          expect({ search, orderBy, size, backward }).toEqual({ search, orderBy, size, backward: expected });
        }
      }
    }
  });

  it("counts exactly what a sample of the whole project or the index can count, and estimates the rest", async () => {
    const sampleOf = (search: string) => {
      const found = matches(search);
      return USERS.slice(0, 8).filter((user) => found.has(user.cloginId)).length;
    };
    Object.assign(SEARCH_WINDOWS, { uidWalk: 3, orderWalk: 3, countSample: 8, indexDocuments: 4 });
    // Two thirds of the project: too many for the index, so the first 8 users' share, projected.
    const jon = (await read({ filter: { search: "jon" }, first: 1 })).users;
    expect(jon).toMatchObject({ totalCountEstimated: true, totalCount: Math.round((sampleOf("jon") / 8) * 30) });
    expect(jon.totalCount).not.toBe(matches("jon").size);
    // A rare word: the index counts it.
    for (const search of ["quillfeather", "zyxwv", "quillfeather jones"]) {
      const { users } = await read({ filter: { search }, first: 1 });
      expect({ search, ...users, edges: undefined, pageInfo: undefined }).toEqual({
        search,
        totalCount: matches(search).size,
        totalCountEstimated: false,
      });
    }
    // A sample that holds the whole project counts every word exactly.
    Object.assign(SEARCH_WINDOWS, { countSample: 30 });
    for (const search of SEARCHES) {
      const { users } = await read({ filter: { search }, first: 1 });
      expect({ search, totalCount: users.totalCount, estimated: users.totalCountEstimated }).toEqual({
        search,
        totalCount: matches(search).size,
        estimated: false,
      });
    }
    // Another filter beside the search: the same rule, the sample's matches meeting that filter too
    // (every user here is a parent; none is a child).
    Object.assign(SEARCH_WINDOWS, { countSample: 8 });
    const parents = (await read({ filter: { search: "jones", level: "PARENT" }, first: 1 })).users;
    expect(parents).toMatchObject({ totalCount: Math.round((sampleOf("jones") / 8) * 30), totalCountEstimated: true });
    const children = (await read({ filter: { search: "jones", level: "CHILD" }, first: 1 })).users;
    expect(children).toMatchObject({ totalCount: 0, totalCountEstimated: true });
    for (const level of ["PARENT", "CHILD"]) {
      const { users } = await read({ filter: { search: "quillfeather", level }, first: 1 });
      expect({ level, total: users.totalCount, estimated: users.totalCountEstimated }).toEqual({
        level,
        total: level === "PARENT" ? 1 : 0,
        estimated: false,
      });
    }
    Object.assign(SEARCH_WINDOWS, { countSample: 30 });
    const whole = (await read({ filter: { search: "jones", level: "PARENT" }, first: 1 })).users;
    expect(whole).toMatchObject({ totalCount: matches("jones").size, totalCountEstimated: false });
  });
});
