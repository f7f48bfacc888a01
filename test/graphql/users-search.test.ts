import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 35 item 5: the users search reads an index (MySQL/MariaDB FULLTEXT, SQLite FTS5) and
// follows one matching rule on both databases: every word of 3 or more characters starts a word
// of the first name, last name, username or main email (docs/graphql.md, "Search").

const SEARCH_GROUP = 100909080;

const PEOPLE = {
  ada: { cloginId: 400000001, firstName: "Ada", lastName: "Jones", username: "ada.jones@example.org" },
  jonas: { cloginId: 400000002, firstName: "Jonas", lastName: "Berg", username: "jb@mail.test" },
  jose: { cloginId: 400000003, firstName: "José", lastName: "O'Brien-Smith", username: "ann_lee@site.com" },
  will: { cloginId: 400000004, firstName: "Will", lastName: "The", username: "will@site.com" },
  zoe: { cloginId: 400000005, firstName: "Zoë", lastName: "Jones", username: "zoe@example.org", child: true },
  tim: { cloginId: 400000006, firstName: "Tim", lastName: "Al", username: "tim.al@mail.test", status: 71 },
} as const;

/** The test fixture with a project of the people above, and Ada Jones's namesake in another project. */
function searchFixture(): unknown {
  const fixture = testFixture() as { organizations: { projects: Record<string, unknown>[] }[] };
  fixture.organizations[0].projects.push({
    id: SEARCH_GROUP,
    name: "Search",
    familySystem: true,
    statuses: [{ id: 71, name: "Waiting", color: "#AA0000" }],
    users: Object.values(PEOPLE).map((person) => ({
      cloginId: person.cloginId,
      username: person.username,
      mainEmail: person.username,
      firstName: person.firstName,
      lastName: person.lastName,
      connectedTo: "child" in person ? PEOPLE.ada.cloginId : null,
      statusId: "status" in person ? person.status : null,
    })),
  });
  const jazz = fixture.organizations[0].projects.find((project) => project.id === MAPLE.jazzGroupId)!;
  jazz.users = [
    ...((jazz.users as unknown[]) ?? []),
    { cloginId: 400000099, username: "ada.jones@elsewhere.test", firstName: "Ada", lastName: "Jones" },
  ];
  return fixture;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: searchFixture() });
});
afterAll(() => t.close());

interface SearchPage {
  users: {
    totalCount: number;
    edges: { cursor: string; node: { cloginId: number } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
}

const USERS = `query($g: Int!, $filter: UserFilter, $first: Int, $after: String, $last: Int, $before: String) {
  users(groupId: $g, filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    totalCount edges { cursor node { cloginId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

const page = (filter: Record<string, unknown>, args: Record<string, unknown> = {}) =>
  graphqlData<SearchPage>(t.app, USERS, { g: SEARCH_GROUP, filter, ...args });

/** The clogin ids a search finds (sorted), after checking that totalCount counts the same. */
async function found(search: string, filter: Record<string, unknown> = {}): Promise<number[]> {
  const { users } = await page({ search, ...filter }, { first: 100 });
  expect(users.totalCount).toBe(users.edges.length);
  return users.edges.map((edge) => edge.node.cloginId).sort((a, b) => a - b);
}

const ids = (...people: (keyof typeof PEOPLE)[]) => people.map((name) => PEOPLE[name].cloginId).sort((a, b) => a - b);

describe("the users search", () => {
  it("finds word prefixes of the first name, last name, username and main email", async () => {
    expect(await found("jon")).toEqual(ids("ada", "jonas", "zoe"));
    expect(await found("jones")).toEqual(ids("ada", "zoe"));
    expect(await found("Berg")).toEqual(ids("jonas"));
    expect(await found("example")).toEqual(ids("ada", "zoe"));
    expect(await found("mail.test")).toEqual(ids("jonas", "tim"));
  });

  it("needs every word; ignores case and accents", async () => {
    expect(await found("ada jones")).toEqual(ids("ada"));
    expect(await found("JONES  zoe")).toEqual(ids("zoe"));
    expect(await found("jose")).toEqual(ids("jose"));
    expect(await found("JOSÉ")).toEqual(ids("jose"));
    expect(await found("zoë jones")).toEqual(ids("zoe"));
    expect(await found("ada berg")).toEqual([]);
  });

  it("splits words at anything but letters, digits and underscores, and matches no word from its middle", async () => {
    expect(await found("brien")).toEqual(ids("jose"));
    expect(await found("smith")).toEqual(ids("jose"));
    expect(await found("o'brien")).toEqual(ids("jose"));
    expect(await found("ann_lee")).toEqual(ids("jose"));
    expect(await found("ann")).toEqual(ids("jose"));
    // "ann_lee" is one word: "lee" starts none. Nor does "ones" start "jones".
    expect(await found("lee")).toEqual([]);
    expect(await found("ones")).toEqual([]);
  });

  it("finds words MySQL/MariaDB would have as stopwords", async () => {
    expect(await found("will")).toEqual(ids("will"));
    expect(await found("the")).toEqual(ids("will"));
    expect(await found("com")).toEqual(ids("jose", "will"));
  });

  it("leaves out words shorter than 3 characters, and refuses a search of such words only", async () => {
    expect(await found("tim al")).toEqual(ids("tim"));
    const refused = await graphql(t.app, USERS, { g: SEARCH_GROUP, filter: { search: "al" } });
    expect(refused.errors).toMatchObject([
      {
        message: "filter.search needs a word of at least 3 letters or digits (shorter words are not searched).",
        extensions: { code: "BAD_USER_INPUT" },
      },
    ]);
    const punctuation = await graphql(t.app, USERS, { g: SEARCH_GROUP, filter: { search: "%" } });
    expect(punctuation.errors?.[0]?.message).toBe(refused.errors?.[0]?.message);
    // A blank search does not filter.
    expect((await page({ search: "  " }, { first: 100 })).users.totalCount).toBe(Object.keys(PEOPLE).length);
  });

  it("keeps to the project and combines with the other filters", async () => {
    expect(await found("ada")).toEqual(ids("ada"));
    expect(await found("jones", { level: "CHILD" })).toEqual(ids("zoe"));
    expect(await found("jones", { level: "PARENT" })).toEqual(ids("ada"));
    expect(await found("tim", { statusId: 71 })).toEqual(ids("tim"));
    expect(await found("jon", { statusId: 0 })).toEqual(ids("ada", "jonas", "zoe"));
  });

  it("pages through the matches forward and backward with totalCount on every page", async () => {
    const first = (await page({ search: "jon" }, { first: 2 })).users;
    expect(first.totalCount).toBe(3);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = (await page({ search: "jon" }, { first: 2, after: first.pageInfo.endCursor })).users;
    expect(second.totalCount).toBe(3);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const forward = [...first.edges, ...second.edges].map((edge) => edge.node.cloginId);
    expect([...forward].sort((a, b) => a - b)).toEqual(ids("ada", "jonas", "zoe"));
    const last = (await page({ search: "jon" }, { last: 2 })).users;
    expect(last.totalCount).toBe(3);
    expect(last.edges.map((edge) => edge.node.cloginId)).toEqual(forward.slice(1));
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true });
  });

  it("follows a person's new name and email at once", async () => {
    const updated = await postRest(t.app, "users", {
      action: "update",
      group_id: SEARCH_GROUP,
      clogin_id: String(PEOPLE.jonas.cloginId),
      doc: { last_name: "Quillfeather", main_email: "jonas@quill.test" },
    });
    expect(updated.status).toBe(200);
    expect(await found("quillfeather")).toEqual(ids("jonas"));
    expect(await found("quill")).toEqual(ids("jonas"));
    expect(await found("berg")).toEqual([]);
    // The username keeps its words.
    expect(await found("mail")).toEqual(ids("jonas", "tim"));
  });

  it("finds a new registrant at once, follows an existing person registered again, and finds an erased person no more", async () => {
    const created = await postRest(t.app, "users", {
      action: "create",
      group_id: SEARCH_GROUP,
      clogin_id: false,
      doc: { password: "secret99", main_email: "nora@pike.test", first_name: "Nora", last_name: "Quarrington" },
    });
    expect(created.status).toBe(200);
    const nora = Number(created.body.user_info.clogin_id);
    expect(await found("quarrington")).toEqual([nora]);
    expect(await found("nora pike")).toEqual([nora]);

    // The same person in another project, with a new last name: both registrations follow.
    const again = await postRest(t.app, "users", {
      action: "create",
      group_id: MAPLE.jazzGroupId,
      clogin_id: nora,
      doc: { last_name: "Larkspur" },
    });
    expect(again.status).toBe(200);
    expect(await found("larkspur")).toEqual([nora]);
    expect(await found("quarrington")).toEqual([]);
    const elsewhere = await graphqlData<SearchPage>(t.app, USERS, {
      g: MAPLE.jazzGroupId,
      filter: { search: "larkspur" },
      first: 10,
    });
    expect(elsewhere.users.edges.map((edge) => edge.node.cloginId)).toEqual([nora]);

    const erased = await postRest(t.app, "persons", { action: "erase", group_id: SEARCH_GROUP, clogin_id: nora });
    expect(erased.status).toBe(200);
    expect(await found("larkspur")).toEqual([]);
    expect(await found("nora")).toEqual([]);
    expect(await found("pike")).toEqual([]);
  });
});
