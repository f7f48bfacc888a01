import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloClient, InMemoryCache } from "@apollo/client";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { print } from "graphql";
import request from "supertest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { DEFAULT_SUBSCRIPTIONS } from "../../src/config/config";
import { recordEvents } from "../../src/domain/events/record-event";
import { inTransaction } from "../../src/domain/transaction";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { RegistrationChanged, UserChanged } from "./operations";
import { firstResult, urqlOverSocket, within, writeUntilReceived, wsClient } from "./support/subscriptions";

// GraphQL subscriptions on one in-process instance (docs/graphql-clients.md#live-updates): the
// README's Apollo Client and urql setups receive events, and every refusal and limit holds. No
// delivery worker runs: the runtime's feed sequencer places events in the feed by itself.
// Across two service processes: subscriptions-instances.test.ts.
jest.setTimeout(60_000);

const ALLOWED_ORIGIN = "https://app.example.test";
const LIMITS = {
  ...DEFAULT_SUBSCRIPTIONS,
  perConnection: 2,
  connectionsPerAccount: 2,
  // Long enough that a client on a busy machine subscribes before it; the idle test waits it out.
  idleTimeoutMs: 4000,
  messageMaxBytes: 4096,
  // One rename records four events (the update submits a form, which completes it and queues its
  // trigger's email): they fit; the slow-consumer test's ten renames do not.
  queueMaxEvents: 5,
  pollIntervalMs: 50,
  reauthIntervalMs: 500,
};

let t: TestApp;
let server: Server;
let wsUrl: string;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { corsOrigins: [ALLOWED_ORIGIN], subscriptions: LIMITS } });
  server = createServer(t.app);
  t.regapi.attach(server);
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  wsUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  server.closeAllConnections();
  await t.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let renames = 0;
/** A REST update that changes the user's first name: one user.updated event. */
const restRename = (cloginId: number = MAPLE.miles) =>
  postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: { first_name: `Miles${++renames}` },
  }).expect(200);

const REGISTRATION_CHANGED = print(RegistrationChanged);
const USER_CHANGED = print(UserChanged);

/** A client as the README sets it up: Apollo Client 4 with GraphQLWsLink over graphql-ws. */
function apolloClient(connectionParams: Record<string, string>) {
  const wsClient = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  closers.push(() => wsClient.dispose());
  return new ApolloClient({ link: new GraphQLWsLink(wsClient), cache: new InMemoryCache() });
}

describe("Apollo Client 4 and urql receive the events of writes", () => {
  it("Apollo Client (GraphQLWsLink): registrationChanged brings a REST update's user.updated, as the feed holds it", async () => {
    const client = apolloClient(mapleHeaders);
    const received = new Promise<Record<string, unknown>>((resolve, reject) => {
      const subscription = client
        .subscribe({ query: RegistrationChanged, variables: { groupId: MAPLE.groupId } })
        .subscribe({
          next: (result) => {
            if (result.error) return reject(result.error);
            if (result.data?.registrationChanged.cloginId === MAPLE.miles) resolve(result.data.registrationChanged);
          },
          error: reject,
        });
      closers.push(() => subscription.unsubscribe());
    });
    const event = await writeUntilReceived(received, () => restRename());
    expect(event).toMatchObject({ type: "USER_UPDATED", groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    expect(event.actor).toEqual({ type: "api_account", api_account_id: Number(MAPLE.apiId) });
    // The same event, id and data, in the pull feed, and the cursor continues the feed after it.
    const feed = await graphql<{ events: { edges: { cursor: string; node: Record<string, unknown> }[] } }>(
      t.app,
      `
        query ($groupId: Int!) {
          events(groupId: $groupId, first: 500, types: [USER_UPDATED]) {
            edges {
              cursor
              node {
                eventId
                data
              }
            }
          }
        }
      `,
      { groupId: MAPLE.groupId },
    );
    const edge = feed.data!.events.edges.find((candidate) => candidate.node.eventId === event.eventId);
    expect(edge).toEqual({ cursor: event.cursor, node: { eventId: event.eventId, data: event.data } });
  });

  it("urql (subscriptionExchange): userChanged brings a GraphQL updateUser's event, and none of another user", async () => {
    const socket = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: mapleHeaders,
      retryAttempts: 0,
    });
    closers.push(() => socket.dispose());
    const client = urqlOverSocket(wsUrl.replace(/^ws/, "http"), socket);
    const seen: { type: string; cloginId: number }[] = [];
    const received = new Promise<{ type: string; cloginId: number; eventId: string }>((resolve, reject) => {
      const { unsubscribe } = client
        .subscription(UserChanged, { groupId: MAPLE.groupId, cloginId: MAPLE.miles })
        .subscribe((result) => {
          if (result.error) return reject(result.error);
          if (!result.data) return;
          seen.push(result.data.userChanged);
          if (result.data.userChanged.type === "USER_UPDATED") resolve(result.data.userChanged);
        });
      closers.push(unsubscribe);
    });
    let values = 0;
    const event = await writeUntilReceived(received, async () => {
      await restRename(MAPLE.bill); // another user: never delivered to this subscription
      const answer = await graphql(
        t.app,
        `
          mutation ($groupId: Int!, $cloginId: Int!, $name: String!) {
            updateUser(input: { groupId: $groupId, cloginId: $cloginId, values: { first_name: $name } }) {
              user {
                cloginId
              }
            }
          }
        `,
        { groupId: MAPLE.groupId, cloginId: MAPLE.miles, name: `Gql${++values}` },
      );
      expect(answer.errors).toBeUndefined();
    });
    expect(event).toMatchObject({ type: "USER_UPDATED", cloginId: MAPLE.miles });
    expect(seen.every((entry) => entry.cloginId === MAPLE.miles)).toBe(true);
  });
});

describe("only committed writes are sent", () => {
  it("a refused write sends nothing: the first event after it is the next successful write's", async () => {
    const { client } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const first = firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    closers.push(first.dispose);
    const event = (await writeUntilReceived(first.result, async () => {
      // Refused (an unknown status): nothing is written, so no event may come of it; the first
      // event the subscription receives must be the rename's user.updated.
      const refused = await postRest(t.app, "users", {
        action: "set_status",
        group_id: MAPLE.groupId,
        clogin_id: MAPLE.miles,
        doc: { status_id: 999_999 },
      });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      await restRename();
    })) as { data: { userChanged: { eventId: string; type: string } } };
    expect(event.data.userChanged.type).toBe("USER_UPDATED");
    // The event received is one the feed holds for a successful rename.
    const feed = await graphql<{ events: { edges: { node: { eventId: string; type: string } }[] } }>(
      t.app,
      `{ events(groupId: ${MAPLE.groupId}, first: 500, types: [USER_UPDATED]) { edges { node { eventId type } } } }`,
    );
    expect(feed.data!.events.edges.map((edge) => edge.node.eventId)).toContain(event.data.userChanged.eventId);
  });
});

describe("refusals carry the codes and messages queries get", () => {
  it("bad credentials: UNAUTHENTICATED, as over HTTP", async () => {
    const bad = { ...mapleHeaders, "Api-Token": "wrong" };
    const { client } = wsClient(wsUrl, bad);
    closers.push(() => client.dispose());
    const over = await within(
      firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.groupId }).result,
      5000,
      "answer",
    );
    const http = await graphql(
      t.app,
      `
        {
          viewer {
            apiId
          }
        }
      `,
      {},
      bad,
    );
    expect(http.status).toBe(401);
    expect(over.errors).toEqual([{ message: http.errors![0].message, extensions: { code: "UNAUTHENTICATED" } }]);
  });

  it("another organization's project: FORBIDDEN; a missing user: USER_NOT_FOUND, as the queries answer", async () => {
    const { client } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const foreign = await firstResult(client, REGISTRATION_CHANGED, { groupId: OTHER.groupId }).result;
    const feed = await graphql(
      t.app,
      `
        query ($g: Int!) {
          events(groupId: $g) {
            pageInfo {
              endCursor
            }
          }
        }
      `,
      {
        g: OTHER.groupId,
      },
    );
    expect(foreign.errors).toMatchObject([{ message: feed.errors![0].message, extensions: { code: "FORBIDDEN" } }]);
    const missing = await firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: 999 }).result;
    const user = await graphql(t.app, `query { user(groupId: ${MAPLE.groupId}, cloginId: 999) { cloginId } }`);
    expect(missing.errors).toMatchObject([
      { message: user.errors![0].message, extensions: { code: "USER_NOT_FOUND" } },
    ]);
  });

  it("a key limited to one project: FORBIDDEN for another, naming its scope, as a query", async () => {
    const run = await regapi(
      [
        "api-key",
        "create",
        "--org",
        "1",
        "--user",
        "live@maple.test",
        "--groups",
        String(MAPLE.groupId),
        "--scope",
        "read",
      ],
      t.state,
    );
    const fields = outputFields(run.stdout);
    const key = { "Api-Id": fields["Api-Id"], "Api-User": fields["Api-User"], "Api-Token": fields["Api-Token"] };
    const { client } = wsClient(wsUrl, key);
    closers.push(() => client.dispose());
    const refused = await firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.jazzGroupId }).result;
    const query = await graphql(
      t.app,
      `
        query ($g: Int!) {
          events(groupId: $g) {
            pageInfo {
              endCursor
            }
          }
        }
      `,
      {
        g: MAPLE.jazzGroupId,
      },
      key,
    );
    expect(refused.errors).toMatchObject([{ message: query.errors![0].message, extensions: { code: "FORBIDDEN" } }]);
  });

  it("a subscription sent over HTTP is refused before execution: 400 BAD_REQUEST naming the WebSocket", async () => {
    const answer = await graphql(t.app, REGISTRATION_CHANGED, { groupId: MAPLE.groupId });
    expect(answer.status).toBe(400);
    expect(answer.errors).toEqual([
      {
        message:
          "Subscriptions are served over WebSocket at /graphql (graphql-ws protocol, subprotocol graphql-transport-ws), not over HTTP.",
        extensions: { code: "BAD_REQUEST" },
      },
    ]);
  });

  it("a key revoked while subscribed: its connection is closed (4403) within SUBSCRIPTION_REAUTH_MS", async () => {
    const run = await regapi(["api-key", "create", "--org", "1", "--user", "revoked@maple.test"], t.state);
    const fields = outputFields(run.stdout);
    const key = { "Api-Id": fields["Api-Id"], "Api-User": fields["Api-User"], "Api-Token": fields["Api-Token"] };
    const { client, closed } = wsClient(wsUrl, key);
    closers.push(() => client.dispose());
    const subscribed = firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.groupId });
    closers.push(subscribed.dispose);
    subscribed.result.catch(() => undefined); // ends with the close below
    await new Promise((resolve) => setTimeout(resolve, 2 * LIMITS.reauthIntervalMs));
    let stillOpen = true;
    void closed.then(() => (stillOpen = false));
    expect(stillOpen).toBe(true); // checked again at least once, unchanged: kept
    expect((await regapi(["api-key", "revoke", fields["Api-Id"]], t.state)).code).toBe(0);
    const started = Date.now();
    expect((await within(closed, 5000, "close")).code).toBe(4403);
    expect(Date.now() - started).toBeLessThan(LIMITS.reauthIntervalMs + 1000);
  });

  it("queries and mutations are not served over the WebSocket", async () => {
    const { client } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const answer = await firstResult(client, `{ viewer { apiId } }`, {}).result;
    expect(answer.errors).toMatchObject([{ extensions: { code: "BAD_REQUEST" } }]);
  });
});

describe("a registrant session", () => {
  async function sessionOf(cloginId: number): Promise<Record<string, string>> {
    const login = await postRest(t.app, "users", {
      action: "login",
      group_id: MAPLE.groupId,
      clogin_id: cloginId,
      doc: {},
    }).expect(200);
    const redeemed = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {}).expect(200);
    return { authorization: `Bearer ${redeemed.body.session_token as string}` };
  }

  it("receives its own registration's changes (that it changed, not who or what), and nothing of others", async () => {
    const session = await sessionOf(MAPLE.miles);
    const refusals = [wsClient(wsUrl, session), wsClient(wsUrl, session)];
    for (const { client } of refusals) closers.push(() => client.dispose());
    const others = await firstResult(refusals[0].client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.bill })
      .result;
    expect(others.errors).toMatchObject([
      {
        message: `A registrant session may subscribe to its own registration only (groupId ${MAPLE.groupId}, cloginId ${MAPLE.miles}).`,
        extensions: { code: "FORBIDDEN" },
      },
    ]);
    const project = await firstResult(refusals[1].client, REGISTRATION_CHANGED, { groupId: MAPLE.groupId }).result;
    expect(project.errors).toMatchObject([
      {
        message:
          "registrationChanged is not available to a registrant session; subscribe to userChanged of your own registration.",
        extensions: { code: "FORBIDDEN" },
      },
    ]);
    // Closed, so the session's next connection stays within SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT.
    await Promise.all(refusals.map(async ({ client, closed }) => (await client.dispose(), await closed)));
    const { client } = wsClient(wsUrl, session);
    closers.push(() => client.dispose());
    const own = firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    closers.push(own.dispose);
    const event = (await writeUntilReceived(own.result, () => restRename())) as {
      data: { userChanged: Record<string, unknown> };
    };
    expect(event.data.userChanged).toMatchObject({
      type: "USER_UPDATED",
      cloginId: MAPLE.miles,
      data: { clogin_id: MAPLE.miles },
    });
  });
});

describe("the connection's origin", () => {
  const open = (origin: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(wsUrl, "graphql-transport-ws", { headers: { Origin: origin } });
      socket.once("open", () => {
        socket.close();
        resolve(101);
      });
      socket.once("unexpected-response", (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      socket.on("error", () => undefined);
    });

  it("is refused (403) from an origin outside CORS_ORIGINS and accepted from one inside it", async () => {
    expect(await open("https://evil.example.test")).toBe(403);
    expect(await open(ALLOWED_ORIGIN)).toBe(101);
  });
});

describe("limits", () => {
  it("subscriptions per connection: one beyond SUBSCRIPTIONS_PER_CONNECTION is refused, the others stay", async () => {
    const { client } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const first = firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.groupId });
    const second = firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.jazzGroupId });
    closers.push(first.dispose, second.dispose);
    const third = await within(
      firstResult(client, REGISTRATION_CHANGED, { groupId: MAPLE.groupId }).result,
      5000,
      "refusal",
    );
    expect(third.errors).toMatchObject([{ extensions: { code: "TOO_MANY_SUBSCRIPTIONS" } }]);
    // The two subscriptions show in /metrics once the server has authorized them.
    let metrics = "";
    for (let tries = 0; tries < 50 && !/^regapi_graphql_subscriptions 2$/m.test(metrics); tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      metrics = (await request(t.app).get("/metrics").expect(200)).text;
    }
    expect(metrics).toMatch(/^regapi_graphql_subscriptions 2$/m);
    expect(metrics).toMatch(/^regapi_graphql_ws_connections 1$/m);
    const event = (await writeUntilReceived(first.result, () => restRename())) as { data: unknown };
    expect(event.data).toBeDefined();
  });

  it("connections per account: one beyond SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT is closed with 4029", async () => {
    const clients = [1, 2, 3].map(() => wsClient(wsUrl, mapleHeaders, { lazy: false }));
    for (const { client } of clients) closers.push(() => client.dispose());
    const third = await within(clients[2].closed, 5000, "close");
    expect(third.code).toBe(4029);
  });

  it("idle timeout: a connection without a subscription is closed with 4000", async () => {
    const { client, closed } = wsClient(wsUrl, mapleHeaders, { lazy: false });
    closers.push(() => client.dispose());
    const started = Date.now();
    expect((await within(closed, LIMITS.idleTimeoutMs + 10_000, "close")).code).toBe(4000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LIMITS.idleTimeoutMs - 100);
  });

  it("message size: a message above SUBSCRIPTION_MESSAGE_MAX_BYTES closes the connection with 1009", async () => {
    const { client, closed } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const padded = `${REGISTRATION_CHANGED}\n#${"x".repeat(LIMITS.messageMaxBytes)}`;
    client.subscribe(
      { query: padded, variables: { groupId: MAPLE.groupId } },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    expect((await within(closed, 5000, "close")).code).toBe(1009);
  });

  it("a slow consumer: more events waiting than SUBSCRIPTION_QUEUE_MAX_EVENTS closes the connection with 4008", async () => {
    const { client, closed } = wsClient(wsUrl, mapleHeaders);
    closers.push(() => client.dispose());
    const burst = client.subscribe(
      { query: USER_CHANGED, variables: { groupId: MAPLE.groupId, cloginId: MAPLE.bill } },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    closers.push(burst);
    // Once an event arrived, the server has both subscriptions (it registers them in order).
    const subscribed = firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    await writeUntilReceived(subscribed.result, () => restRename());
    // One transaction's ten events join the feed together, more than the queue holds. (The
    // client takes one event at a time, so ten arriving at once overflow a queue of five.)
    await inTransaction(t.context(), "test.burst", async ({ em }) =>
      recordEvents(
        em,
        Array.from({ length: 10 }, () => ({
          type: "user.updated" as const,
          groupId: MAPLE.groupId,
          data: { clogin_id: MAPLE.bill },
        })),
      ),
    );
    expect((await within(closed, 5000, "close")).code).toBe(4008);
  });
});
