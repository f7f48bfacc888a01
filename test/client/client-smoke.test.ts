import { ApolloClient, HttpLink, InMemoryCache } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";
import { ClientError, GraphQLClient } from "graphql-request";
import { mapleHeaders, MAPLE } from "../fixtures/test-fixture";
import { listenOnLoopback, type ListeningApp } from "../support/listening-app";
import { startTestApp, type TestApp } from "../support/test-app";
import { MarkFormsComplete, NodeById, ProjectTags, UsersPage, UserWithForms } from "./operations";

// What a frontend team runs: operations typed by graphql-codegen's client preset from
// schema.graphql, sent over real HTTP with graphql-request and with Apollo Client 4 on a default
// InMemoryCache. The cache must follow a mutation with no type policies (every object has an id),
// and relayStylePagination must merge pages both ways.

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

const apolloClient = (cache = new InMemoryCache()) =>
  new ApolloClient({ link: new HttpLink({ uri: url, headers: { ...mapleHeaders } }), cache });

/** The first value the observable emits that passes `accept` (or fails after `ms`). */
function nextMatching<T>(
  observable: { subscribe(observer: { next(value: T): void; error(error: unknown): void }): { unsubscribe(): void } },
  accept: (value: T) => boolean,
  ms = 5_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.unsubscribe();
      reject(new Error(`no matching result within ${ms} ms`));
    }, ms);
    const subscription = observable.subscribe({
      next(value) {
        if (!accept(value)) return;
        clearTimeout(timer);
        // Unsubscribing inside next() is allowed; deferred so the subscription variable is set.
        queueMicrotask(() => subscription.unsubscribe());
        resolve(value);
      },
      error(error) {
        clearTimeout(timer);
        reject(error);
      },
    });
  });
}

/** The data of a complete result; Apollo Client 4 types partial and complete results apart by dataState. */
function complete<R extends { dataState: string; data?: unknown }>(
  result: R,
): Extract<R, { dataState: "complete"; data: unknown }>["data"] {
  if (result.dataState !== "complete") throw new Error(`expected a complete result, got ${result.dataState}`);
  return (result as Extract<R, { dataState: "complete"; data: unknown }>).data;
}

/** A lookup that answered: user and children are nullable (issue 24), so clients check them. */
function present<T>(value: T | null | undefined): T {
  if (value == null) throw new Error("expected the lookup to answer");
  return value;
}

describe("graphql-request with the generated typed documents", () => {
  it("reads a user with nested meta info, forms, fields, values and children", async () => {
    const client = new GraphQLClient(url, { headers: mapleHeaders });
    const user = present((await client.request(UserWithForms, { groupId: MAPLE.groupId, cloginId: MAPLE.miles })).user);
    const children = present(user.children);
    expect(user.cloginId).toBe(MAPLE.miles);
    expect(user.metaInfo.totalForms).toBeGreaterThan(0);
    expect(user.forms.map((entry) => entry.form.formId)).toEqual([301, 303, 304]);
    expect(user.forms[0].form.fields.every((field) => field.identifier.startsWith("f_301_"))).toBe(true);
    expect(children.map((child) => child.cloginId)).toEqual([MAPLE.childKind]);
    // Every object carries its own Node id; refetching the user by it gives the same data.
    const ids = [user.id, user.metaInfo.id, ...user.forms.map((entry) => entry.id), ...children.map((c) => c.id)];
    expect(new Set(ids).size).toBe(ids.length);
    const { node } = await client.request(NodeById, { id: user.id });
    expect(node).toMatchObject({ __typename: "User", id: user.id, cloginId: MAPLE.miles });
  });

  it("sends a query as GET when it adds the preflight header; without it CSRF prevention refuses", async () => {
    const variables = { groupId: MAPLE.groupId, cloginId: MAPLE.miles };
    const get = new GraphQLClient(url, {
      method: "GET",
      headers: { ...mapleHeaders, "apollo-require-preflight": "true" },
    });
    expect((await get.request(UserWithForms, variables)).user?.cloginId).toBe(MAPLE.miles);

    const bare = new GraphQLClient(url, { method: "GET", headers: mapleHeaders });
    const refused = await bare.request(UserWithForms, variables).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientError);
    expect((refused as ClientError).response.status).toBe(400);
  });
});

describe("Apollo Client 4 with a default InMemoryCache", () => {
  it("updates a watched nested query from a mutation's result, with no type policies", async () => {
    const client = apolloClient();
    const variables = { groupId: MAPLE.groupId, cloginId: MAPLE.bill };
    const watched = client.watchQuery({ query: UserWithForms, variables });
    const before = {
      user: present(complete(await nextMatching(watched, (result) => result.dataState === "complete")).user),
    };
    const completedBefore = before.user.metaInfo.completedForms;
    expect(before.user.forms.find((entry) => entry.form.formId === 304)?.completed).toBe(false);

    const updated = nextMatching(
      watched,
      (result) => result.dataState === "complete" && complete(result).user?.metaInfo.completedForms !== completedBefore,
    );
    const { data } = await client.mutate({
      mutation: MarkFormsComplete,
      variables: { input: { ...variables, formIds: [304], disableEmailSending: true } },
    });
    expect(data?.markFormsComplete.markedComplete).toEqual([304]);

    // The watched query was not refetched: the normalized MetaInfo and UserForm entries changed.
    const after = { user: present(complete(await updated).user) };
    expect(after.user.metaInfo.completedForms).toBe(completedBefore + 1);
    expect(after.user.forms.find((entry) => entry.form.formId === 304)?.completed).toBe(true);
    const metaInfoKey = client.cache.identify({ __typename: "MetaInfo", id: before.user.metaInfo.id });
    expect(metaInfoKey).toBe(`MetaInfo:${before.user.metaInfo.id}`);
    client.stop();
  });

  it("merges a project's tag pages with relayStylePagination on Project.tags (issue 24)", async () => {
    const client = apolloClient(
      new InMemoryCache({ typePolicies: { Project: { fields: { tags: relayStylePagination() } } } }),
    );
    const watched = client.watchQuery({ query: ProjectTags, variables: { groupId: MAPLE.groupId, first: 1 } });
    const firstPage = present(
      complete(await nextMatching(watched, (result) => result.dataState === "complete")).project,
    );
    expect(firstPage.tags?.edges.map((edge) => edge.node.name)).toEqual(["VIP"]);
    expect(firstPage.tags?.pageInfo.hasNextPage).toBe(true);
    await watched.fetchMore({ variables: { after: firstPage.tags?.pageInfo.endCursor } });
    const merged = present(complete(watched.getCurrentResult()).project).tags;
    expect(merged?.edges.map((edge) => edge.node.tagId)).toEqual([3, 4]);
    expect(merged?.pageInfo.hasNextPage).toBe(false);
    client.stop();
  });

  it("merges pages forward and backward with relayStylePagination", async () => {
    const pagedCache = () =>
      new InMemoryCache({ typePolicies: { Query: { fields: { users: relayStylePagination(["groupId"]) } } } });
    const all = await new GraphQLClient(url, { headers: mapleHeaders }).request(UsersPage, {
      groupId: MAPLE.groupId,
      first: 100,
    });
    const everyone = all.users.edges.map((edge) => edge.node.cloginId);
    expect(everyone.length).toBe(3);

    const forward = apolloClient(pagedCache());
    const watched = forward.watchQuery({ query: UsersPage, variables: { groupId: MAPLE.groupId, first: 2 } });
    const firstPage = complete(await nextMatching(watched, (result) => result.dataState === "complete"));
    expect(firstPage.users.pageInfo.hasNextPage).toBe(true);
    await watched.fetchMore({ variables: { after: firstPage.users.pageInfo.endCursor } });
    const merged = complete(watched.getCurrentResult()).users;
    expect(merged.edges.map((edge) => edge.node.cloginId)).toEqual(everyone);
    expect(merged.pageInfo.hasNextPage).toBe(false);

    const backwardClient = apolloClient(pagedCache());
    const backward = backwardClient.watchQuery({ query: UsersPage, variables: { groupId: MAPLE.groupId, last: 1 } });
    const lastPage = complete(await nextMatching(backward, (result) => result.dataState === "complete"));
    expect(lastPage.users.edges.map((edge) => edge.node.cloginId)).toEqual(everyone.slice(-1));
    expect(lastPage.users.pageInfo.hasPreviousPage).toBe(true);
    await backward.fetchMore({ variables: { before: lastPage.users.pageInfo.startCursor, last: 2 } });
    const prepended = complete(backward.getCurrentResult()).users;
    expect(prepended.edges.map((edge) => edge.node.cloginId)).toEqual(everyone);
    expect(prepended.pageInfo.hasPreviousPage).toBe(false);
    forward.stop();
    backwardClient.stop();
  });
});
