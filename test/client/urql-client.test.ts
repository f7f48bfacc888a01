import { Client, fetchExchange } from "urql";
import { cacheExchange } from "@urql/exchange-graphcache";
import { relayPagination } from "@urql/exchange-graphcache/extras";
import { mapleHeaders, MAPLE } from "../fixtures/test-fixture";
import { listenOnLoopback, type ListeningApp } from "../support/listening-app";
import { startTestApp, type TestApp } from "../support/test-app";
import { MarkFormsComplete, UsersPage, UserWithForms } from "./operations";

// Issue 20: urql with graphcache, set up as README.md's "For frontend teams" shows it, over real
// HTTP with the operations typed by graphql-codegen. urql sends queries as GET unless told
// otherwise, which Apollo Server's CSRF prevention refuses; the README's client sends POST.

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

/**
 * The README's client, word for word but for the URL and the headers: the README's browser app
 * sends a registrant session (`Authorization: Bearer`); this test reads a project's users, which
 * takes the API headers.
 */
const readmeClient = (headers: Record<string, string> = mapleHeaders) =>
  new Client({
    url,
    preferGetMethod: false,
    exchanges: [cacheExchange({ resolvers: { Query: { users: relayPagination() } } }), fetchExchange],
    fetchOptions: () => ({ headers }),
  });

it("the README's client before issue 20 (urql's default GET) is refused by CSRF prevention on its first query", async () => {
  const getClient = new Client({
    url,
    exchanges: [cacheExchange({ resolvers: { Query: { users: relayPagination() } } }), fetchExchange],
    fetchOptions: () => ({ headers: mapleHeaders }),
  });
  const result = await getClient.query(UserWithForms, { groupId: MAPLE.groupId, cloginId: MAPLE.miles }).toPromise();
  expect(result.data).toBeUndefined();
  expect(result.error?.response?.status).toBe(400);
  expect(result.error?.message).toMatch(/CSRF/);
});

it("reads a user with nested data on its first query", async () => {
  const result = await readmeClient()
    .query(UserWithForms, { groupId: MAPLE.groupId, cloginId: MAPLE.miles })
    .toPromise();
  expect(result.error).toBeUndefined();
  expect(result.data?.user?.cloginId).toBe(MAPLE.miles);
  expect(result.data?.user?.forms.map((entry) => entry.form.formId)).toEqual([301, 303, 304]);
});

it("graphcache updates a watched query from a mutation's result, with no cache configuration but the pagination resolver", async () => {
  const client = readmeClient();
  const variables = { groupId: MAPLE.groupId, cloginId: MAPLE.bill };
  const results: { completed: number; form304: boolean | undefined }[] = [];
  let sawUpdate: () => void = () => undefined;
  const updated = new Promise<void>((resolve) => (sawUpdate = resolve));
  const watched = client.query(UserWithForms, variables).subscribe((result) => {
    if (!result.data?.user) return;
    const { metaInfo, forms } = result.data.user;
    results.push({
      completed: metaInfo.completedForms,
      form304: forms.find((entry) => entry.form.formId === 304)?.completed,
    });
    if (results.length > 1 && results.at(-1)!.completed !== results[0].completed) sawUpdate();
  });
  try {
    await until(() => results.length > 0);
    expect(results[0].form304).toBe(false);

    const marked = await client
      .mutation(MarkFormsComplete, { input: { ...variables, formIds: [304], disableEmailSending: true } })
      .toPromise();
    expect(marked.error).toBeUndefined();
    expect(marked.data?.markFormsComplete.markedComplete).toEqual([304]);

    // The watched query was answered from the cache: the MetaInfo and UserForm entries (keyed by id) changed.
    await updated;
    expect(results.at(-1)).toEqual({ completed: results[0].completed + 1, form304: true });
  } finally {
    watched.unsubscribe();
  }
});

it("relayPagination merges the next page into the users connection", async () => {
  const all = await readmeClient().query(UsersPage, { groupId: MAPLE.groupId, first: 100 }).toPromise();
  const everyone = all.data!.users.edges.map((edge) => edge.node.cloginId);
  expect(everyone).toHaveLength(3);

  const client = readmeClient();
  const firstPage = await client.query(UsersPage, { groupId: MAPLE.groupId, first: 2 }).toPromise();
  expect(firstPage.error).toBeUndefined();
  const page = firstPage.data!.users;
  expect(page.edges).toHaveLength(2);
  expect(page.pageInfo.hasNextPage).toBe(true);

  const next = await client
    .query(UsersPage, { groupId: MAPLE.groupId, first: 2, after: page.pageInfo.endCursor })
    .toPromise();
  expect(next.error).toBeUndefined();
  const merged = next.data!.users;
  expect(merged.edges.map((edge) => edge.node.cloginId)).toEqual(everyone);
  expect(merged.pageInfo.hasNextPage).toBe(false);
});

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
