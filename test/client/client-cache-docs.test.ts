import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApolloClient, HttpLink, InMemoryCache, gql, type DefaultOptions } from "@apollo/client";
import { cacheExchange, type KeyingConfig } from "@urql/exchange-graphcache";
import { Client as UrqlClient, fetchExchange, gql as urqlGql } from "urql";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { listenOnLoopback, type ListeningApp } from "../support/listening-app";
import { startTestApp, type TestApp } from "../support/test-app";

// docs/graphql-clients.md, "Client caches": the page's snippets, taken from the page as written,
// run with Apollo Client 4 and urql's graphcache over HTTP. Each test also runs the client
// without the snippet, so it shows what the snippet changes.

const PAGE = readFileSync(join(__dirname, "../../docs/graphql-clients.md"), "utf8");

/** Any text that does not close a fenced block. */
const WITHIN_BLOCK = "(?:(?!```)[\\s\\S])*?";

/** The `js` block of the page that declares `name`, evaluated: the value it declares. */
function jsSnippet<T>(name: string): T {
  const block = new RegExp("```js\\n(" + WITHIN_BLOCK + "const " + name + " = " + WITHIN_BLOCK + ")```").exec(PAGE);
  if (!block) throw new Error(`docs/graphql-clients.md has no js snippet declaring ${name}`);
  return new Function(`${block[1]}\nreturn ${name};`)() as T;
}

/** The page's `graphql` block holding `operation`. */
function graphqlSnippet(operation: string): string {
  const block = new RegExp("```graphql\\n(" + WITHIN_BLOCK + operation + WITHIN_BLOCK + ")```").exec(PAGE);
  if (!block) throw new Error(`docs/graphql-clients.md has no graphql block with ${operation}`);
  return block[1];
}

let t: TestApp;
let listening: ListeningApp;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  listening = await listenOnLoopback(t.app);
  url = listening.url("/graphql");
});
afterAll(async () => {
  await listening.close();
  await t.close();
});

function countingFetch(): { fetch: typeof fetch; count(): number } {
  let sent = 0;
  return {
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
    count: () => sent,
  };
}

const apollo = (defaultOptions?: DefaultOptions, http = countingFetch()) =>
  new ApolloClient({
    link: new HttpLink({ uri: url, headers: { ...mapleHeaders }, fetch: http.fetch }),
    cache: new InMemoryCache(),
    defaultOptions,
  });

const urql = (keys?: KeyingConfig, http = countingFetch()) =>
  new UrqlClient({
    url,
    preferGetMethod: false,
    fetch: http.fetch,
    fetchOptions: () => ({ headers: mapleHeaders }),
    exchanges: [cacheExchange({ keys }), fetchExchange],
  });

describe("Apollo Client's errorPolicy", () => {
  const PROJECT_AND_MISSING_USER = gql`
    query ProjectAndMissingUser($groupId: Int!) {
      project(groupId: $groupId) {
        id
        name
      }
      user(groupId: $groupId, cloginId: 1) {
        id
        name
      }
    }
  `;

  it("the default drops the project with the missing user's error; the page's defaultOptions keep it next to the error", async () => {
    const variables = { groupId: MAPLE.groupId };
    const byDefault = await apollo()
      .query({ query: PROJECT_AND_MISSING_USER, variables })
      .then(
        (result) => ({ thrown: null, data: result.data }),
        (error: Error) => ({ thrown: error, data: undefined }),
      );
    expect(byDefault.thrown?.message).toMatch(/User 1 is not registered/);
    expect(byDefault.data).toBeUndefined();

    const withSnippet = await apollo(jsSnippet<DefaultOptions>("apolloDefaultOptions")).query({
      query: PROJECT_AND_MISSING_USER,
      variables,
    });
    expect(withSnippet.data).toEqual({
      project: { __typename: "Project", id: expect.any(String), name: expect.any(String) },
      user: null,
    });
    expect(withSnippet.error?.message).toMatch(/User 1 is not registered/);
  });
});

describe("graphcache keys for the types without an id", () => {
  const VALUES_WITHOUT_ID = urqlGql`
    query ValuesWithoutId($groupId: Int!, $cloginId: Int!) {
      project(groupId: $groupId) {
        id
        groupTotals {
          totalUsers
          totalOrder
        }
        forms {
          id
          fields {
            id
            choices {
              value
              label
            }
          }
        }
      }
      user(groupId: $groupId, cloginId: $cloginId) {
        id
        metaInfo {
          id
          assignedAdmin {
            adminId
            initials
          }
        }
      }
    }
  `;

  /** The query's answer through graphcache, and what graphcache warned meanwhile. */
  async function read(keys?: KeyingConfig) {
    const warnings: string[] = [];
    const warn = jest.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
      warnings.push(args.map(String).join(" "));
    });
    try {
      const result = await urql(keys)
        .query(VALUES_WITHOUT_ID, { groupId: MAPLE.groupId, cloginId: MAPLE.miles })
        .toPromise();
      return { result, warnings };
    } finally {
      warn.mockRestore();
    }
  }

  it("without keys graphcache warns about FormChoice, GroupTotals and AssignedAdmin; with the page's keys it does not, and answers the same", async () => {
    const without = await read();
    for (const type of ["FormChoice", "GroupTotals", "AssignedAdmin"])
      expect(without.warnings.some((warning) => warning.includes(type))).toBe(true);

    const withKeys = await read(jsSnippet<KeyingConfig>("graphcacheKeys"));
    expect(withKeys.warnings).toEqual([]);
    expect(withKeys.result.error).toBeUndefined();
    expect(withKeys.result.data).toEqual(without.result.data);
    const data = withKeys.result.data as {
      project: { groupTotals: { totalUsers: number }; forms: { fields: { choices: unknown[] }[] }[] };
      user: { metaInfo: { assignedAdmin: { initials: string } | null } };
    };
    // The three types are really in the answer, so the absence of warnings means something.
    expect(data.project.groupTotals.totalUsers).toBeGreaterThan(0);
    expect(data.project.forms.some((form) => form.fields.some((field) => field.choices.length > 0))).toBe(true);
    expect(data.user.metaInfo.assignedAdmin).not.toBeNull();
  });
});

describe("a create mutation that returns its parent updates the cached list", () => {
  const STATUSES = gql`
    query ProjectStatuses($groupId: Int!) {
      project(groupId: $groupId) {
        id
        statuses {
          id
          name
        }
      }
    }
  `;
  const CREATE_STATUS = gql(graphqlSnippet("mutation CreateStatus"));

  /** Resolves once `names` (filled by the watched query) holds `name`, or fails after 5 s. */
  const showing = (names: string[][], name: string, notify: { check: () => void }) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the watched statuses never showed ${name}`)), 5000);
      notify.check = () => {
        if (names.some((list) => list.includes(name))) {
          clearTimeout(timer);
          resolve();
        }
      };
      notify.check();
    });

  it("Apollo Client: the watched project.statuses shows the created status from the payload alone", async () => {
    const http = countingFetch();
    const client = apollo(jsSnippet<DefaultOptions>("apolloDefaultOptions"), http);
    const seen: string[][] = [];
    const notify = { check: () => undefined as void };
    const watched = client.watchQuery({ query: STATUSES, variables: { groupId: MAPLE.groupId } }).subscribe({
      next: (result) => {
        const project = (result.data as { project?: { statuses: { name: string }[] } | null } | undefined)?.project;
        if (!project) return;
        seen.push(project.statuses.map((status) => status.name));
        notify.check();
      },
    });
    try {
      await new Promise<void>((resolve) => {
        notify.check = () => seen.length > 0 && resolve();
      });
      expect(seen[0]).not.toContain("Waiting list");
      const created = await client.mutate({
        mutation: CREATE_STATUS,
        variables: { groupId: MAPLE.groupId, name: "Waiting list" },
      });
      expect((created.data as { createStatus: { problems: unknown[] } }).createStatus.problems).toEqual([]);
      await showing(seen, "Waiting list", notify);
      expect(http.count()).toBe(2); // the query and the mutation: no refetch
    } finally {
      watched.unsubscribe();
    }
  });

  it("urql graphcache: the watched project.statuses shows the created status from the payload alone", async () => {
    const http = countingFetch();
    const client = urql(jsSnippet<KeyingConfig>("graphcacheKeys"), http);
    const seen: string[][] = [];
    const notify = { check: () => undefined as void };
    const watched = client.query(STATUSES, { groupId: MAPLE.groupId }).subscribe((result) => {
      const project = (result.data as { project?: { statuses: { name: string }[] } | null } | undefined)?.project;
      if (!project) return;
      seen.push(project.statuses.map((status) => status.name));
      notify.check();
    });
    try {
      await new Promise<void>((resolve) => {
        notify.check = () => seen.length > 0 && resolve();
      });
      expect(seen[0]).not.toContain("On hold");
      const created = await client.mutation(CREATE_STATUS, { groupId: MAPLE.groupId, name: "On hold" }).toPromise();
      expect(created.error).toBeUndefined();
      await showing(seen, "On hold", notify);
      expect(http.count()).toBe(2);
    } finally {
      watched.unsubscribe();
    }
  });
});
