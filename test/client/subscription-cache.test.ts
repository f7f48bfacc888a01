import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from "@apollo/client";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { getMainDefinition } from "@apollo/client/utilities";
import { cacheExchange } from "@urql/exchange-graphcache";
import { createClient } from "graphql-ws";
import { Client as UrqlClient, fetchExchange, subscriptionExchange } from "urql";
import WebSocket from "ws";
import { DEFAULT_DELIVERY, DEFAULT_SUBSCRIPTIONS } from "../../src/config/config";
import { startDeliveryWorker, type DeliveryWorker } from "../../src/delivery/delivery-worker";
import { createLogger } from "../../src/http/logger";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { RegistrationChangedWithUser, UserCard, UserChangedWithUser } from "./operations";
import { firstResult, within, writeUntilReceived, wsClient } from "./support/subscriptions";

// Issue 35 §2: an event carries the changed `user`, selected like any User, so a client's
// normalized cache writes it over the user its queries read and a watched query changes from the
// event alone. Apollo Client 4 (InMemoryCache, split link) and urql with graphcache, over
// graphql-ws for the subscription and HTTP for the query, each counting its HTTP requests: one,
// the query's first answer; no refetch follows an event.
jest.setTimeout(60_000);

let t: TestApp;
let server: Server;
let httpUrl: string;
let wsUrl: string;
let worker: DeliveryWorker;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { subscriptions: { ...DEFAULT_SUBSCRIPTIONS, pollIntervalMs: 50 } } });
  server = createServer(t.app);
  t.regapi.attach(server);
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  wsUrl = httpUrl.replace(/^http/, "ws");
  worker = startDeliveryWorker({
    state: t.state,
    logger: createLogger("silent"),
    config: { ...DEFAULT_DELIVERY, pollIntervalMs: 50 },
  });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await worker.stop();
  server.closeAllConnections();
  await t.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let renames = 0;
const restRename = (cloginId: number) => {
  const firstName = `Cached${++renames}`;
  return postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: { first_name: firstName },
  })
    .expect(200)
    .then(() => firstName);
};

let emails = 0;
/** add_email: one email.recorded event, and a new entry in the user's emails. */
const restAddEmail = (cloginId: number) => {
  const subject = `Receipt ${++emails}`;
  return postRest(t.app, "users", {
    action: "add_email",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: { email_list: [{ from: "office@maple.test", to: "miles@maple.test", subject, body: "Thanks" }] },
  })
    .expect(200)
    .then(() => subject);
};

/** fetch that counts the requests it sends. */
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

/** Resolves with the first value `values` holds (now or later) that passes `accept`. */
function waitFor<T>(values: T[], accept: (value: T) => boolean, onValue: { notify: () => void }): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const found = values.find(accept);
      if (found !== undefined) resolve(found);
    };
    onValue.notify = check;
    check();
  });
}

interface Card {
  firstName: string | null;
  updatedAt: string;
  emails: string[];
}

describe("a watched query changes from a subscription's event, with no refetch", () => {
  it("Apollo Client 4: userChanged's user updates the cached user of a watched query (values, then an add_email)", async () => {
    const http = countingFetch();
    const socket = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: mapleHeaders,
      retryAttempts: 0,
    });
    closers.push(() => socket.dispose());
    // Apollo's documented split: subscriptions over the WebSocket, the rest over HTTP.
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === "OperationDefinition" && definition.operation === "subscription";
      },
      new GraphQLWsLink(socket),
      new HttpLink({ uri: httpUrl, headers: { ...mapleHeaders }, fetch: http.fetch }),
    );
    const client = new ApolloClient({ link, cache: new InMemoryCache() });
    const variables = { groupId: MAPLE.groupId, cloginId: MAPLE.miles };

    const cards: Card[] = [];
    const seen = { notify: () => undefined as void };
    const watched = client.watchQuery({ query: UserCard, variables }).subscribe({
      next: (result) => {
        // Apollo Client 4 types a partial result apart (dataState); only complete ones are cards.
        if (result.dataState !== "complete") return;
        const user = result.data.user;
        if (!user) return;
        cards.push({
          firstName: user.firstName ?? null,
          updatedAt: user.metaInfo.updatedAt,
          emails: (user.emails ?? []).map((email) => email.subject),
        });
        seen.notify();
      },
    });
    closers.push(() => watched.unsubscribe());
    await within(
      waitFor(cards, () => true, seen),
      10_000,
      "first answer",
    );
    expect(http.count()).toBe(1);

    const events: string[] = [];
    const received = { notify: () => undefined as void };
    const subscription = client.subscribe({ query: UserChangedWithUser, variables }).subscribe({
      next: (result) => {
        const event = result.data?.userChanged;
        if (!event) return;
        events.push(event.type);
        received.notify();
      },
    });
    closers.push(() => subscription.unsubscribe());

    // The first write may come before the server registered the subscription: written until an event arrives.
    let firstName = "";
    await writeUntilReceived(
      waitFor(events, (type) => type === "USER_UPDATED", received),
      async () => (firstName = await restRename(MAPLE.miles)),
    );
    const renamed = await within(
      waitFor(cards, (card) => card.firstName === firstName, seen),
      5_000,
      "the watched query with the new name",
    );
    expect(renamed.updatedAt > cards[0].updatedAt).toBe(true);

    const subject = await restAddEmail(MAPLE.miles);
    await within(
      waitFor(events, (type) => type === "EMAIL_RECORDED", received),
      10_000,
      "EMAIL_RECORDED",
    );
    await within(
      waitFor(cards, (card) => card.emails.includes(subject), seen),
      5_000,
      "the watched query with the new email",
    );
    // Only the watched query's first answer went over HTTP: the changes came with the events.
    expect(http.count()).toBe(1);
  });

  it("urql with graphcache: registrationChanged's user updates a watched query of that user, and no other user's event touches it", async () => {
    const http = countingFetch();
    const socket = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: mapleHeaders,
      retryAttempts: 0,
    });
    closers.push(() => socket.dispose());
    const client = new UrqlClient({
      url: httpUrl,
      preferGetMethod: false,
      fetch: http.fetch,
      fetchOptions: () => ({ headers: mapleHeaders }),
      exchanges: [
        cacheExchange(),
        fetchExchange,
        subscriptionExchange({
          forwardSubscription(request) {
            const input = { ...request, query: request.query || "" };
            return { subscribe: (sink) => ({ unsubscribe: socket.subscribe(input, sink) }) };
          },
        }),
      ],
    });
    const variables = { groupId: MAPLE.groupId, cloginId: MAPLE.miles };

    const cards: Card[] = [];
    const seen = { notify: () => undefined as void };
    const watched = client.query(UserCard, variables).subscribe((result) => {
      const user = result.data?.user;
      if (!user) return;
      cards.push({
        firstName: user.firstName ?? null,
        updatedAt: user.metaInfo.updatedAt,
        emails: (user.emails ?? []).map((email) => email.subject),
      });
      seen.notify();
    });
    closers.push(() => watched.unsubscribe());
    await within(
      waitFor(cards, () => true, seen),
      10_000,
      "first answer",
    );
    expect(http.count()).toBe(1);

    const events: { type: string; cloginId: number; firstName: string | null }[] = [];
    const received = { notify: () => undefined as void };
    const subscription = client
      .subscription(RegistrationChangedWithUser, { groupId: MAPLE.groupId })
      .subscribe((result) => {
        const event = result.data?.registrationChanged;
        if (!event) return;
        events.push({ type: event.type, cloginId: event.cloginId, firstName: event.user?.firstName ?? null });
        received.notify();
      });
    closers.push(() => subscription.unsubscribe());

    let otherName = "";
    await writeUntilReceived(
      waitFor(events, (event) => event.cloginId === MAPLE.bill, received),
      async () => (otherName = await restRename(MAPLE.bill)),
    );
    // Bill's event carries Bill: the watched query of Miles is unchanged.
    expect(events.find((event) => event.cloginId === MAPLE.bill)?.firstName).toBe(otherName);
    expect(cards.at(-1)!.firstName).toBe(cards[0].firstName);

    const firstName = await restRename(MAPLE.miles);
    await within(
      waitFor(cards, (card) => card.firstName === firstName, seen),
      10_000,
      "the watched query with the new name",
    );
    const subject = await restAddEmail(MAPLE.miles);
    await within(
      waitFor(cards, (card) => card.emails.includes(subject), seen),
      10_000,
      "the watched query with the new email",
    );
    expect(http.count()).toBe(1);
  });
});

describe("the event's user", () => {
  const USER_EVENT = `subscription ($groupId: Int!) {
    registrationChanged(groupId: $groupId) { type cloginId user { id cloginId firstName } }
  }`;

  it("a registrant session's userChanged carries its own registration, as me reads it", async () => {
    const login = await postRest(t.app, "users", {
      action: "login",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
      doc: {},
    }).expect(200);
    const redeemed = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {}).expect(200);
    const { client } = wsClient(wsUrl, { authorization: `Bearer ${redeemed.body.session_token as string}` });
    closers.push(() => client.dispose());
    const own = firstResult(
      client,
      `subscription ($groupId: Int!, $cloginId: Int!) {
        userChanged(groupId: $groupId, cloginId: $cloginId) { type data user { cloginId firstName } }
      }`,
      { groupId: MAPLE.groupId, cloginId: MAPLE.miles },
    );
    closers.push(own.dispose);
    let firstName = "";
    const event = (await writeUntilReceived(own.result, async () => (firstName = await restRename(MAPLE.miles)))) as {
      data: { userChanged: unknown };
    };
    expect(event.data.userChanged).toEqual({
      type: "USER_UPDATED",
      data: { clogin_id: MAPLE.miles },
      user: { cloginId: MAPLE.miles, firstName },
    });
  });

  it("after PERSON_ERASED, is the erased registration (its name null), so a cache drops what it held of the person", async () => {
    const { client } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const results: {
      data?: { registrationChanged: { type: string; cloginId: number; user: unknown } };
      errors?: unknown;
    }[] = [];
    const received = { notify: () => undefined as void };
    const dispose = client.subscribe(
      { query: USER_EVENT, variables: { groupId: MAPLE.groupId } },
      {
        next: (value) => {
          results.push(value as (typeof results)[number]);
          received.notify();
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    closers.push(dispose);
    await writeUntilReceived(
      waitFor(results, () => true, received),
      () => restRename(MAPLE.bill),
    );
    await postRest(t.app, "persons", { action: "erase", group_id: MAPLE.groupId, clogin_id: MAPLE.bill }).expect(200);
    const erased = await within(
      waitFor(results, (result) => result.data?.registrationChanged.type === "PERSON_ERASED", received),
      10_000,
      "PERSON_ERASED",
    );
    expect(erased).toEqual({
      data: {
        registrationChanged: {
          type: "PERSON_ERASED",
          cloginId: MAPLE.bill,
          user: { id: expect.any(String), cloginId: MAPLE.bill, firstName: null },
        },
      },
    });
  });
});
