import { ApolloClient, InMemoryCache } from "@apollo/client";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { createClient, type Client as WsClient } from "graphql-ws";
import WebSocket from "ws";
import { builtService } from "../support/service-build";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { onMysqlFamily } from "../support/database";
import { openProcessDatabase, type ProcessDatabase } from "../support/process-database";
import { ServiceInstances } from "../support/service-instances";
import { RegistrationChanged, UserChanged } from "./operations";
import { urqlOverSocket, within, writeUntilReceived, type ClosedEvent } from "./support/subscriptions";

// Live updates across instances (docs/graphql-clients.md#live-updates): two service processes on
// one database (an SQLite file, or MariaDB with TEST_DATABASE_URL) and Redis, without the delivery
// worker. A client subscribed on instance A receives the events of writes made through instance
// B, over REST and GraphQL, with the ids the feed holds; SIGTERM closes A's WebSockets with 1012
// and A exits 0. The fallback read of the feed is set to 30 s, longer than any wait here: every
// event arrives because a wake-up brought it (B's commit wakes B's sequencer, which wakes A
// through Redis; a write through A wakes A in process), not because a poll came round.
jest.setTimeout(60_000);

/** The instances' fallback read of the feed: longer than writeUntilReceived waits (6 writes, 1.5 s apart). */
const FALLBACK_READ_MS = 30_000;

let database: ProcessDatabase | undefined;
let instances: ServiceInstances | undefined;
const sockets: WsClient[] = [];

beforeAll(async () => {
  database = await openProcessDatabase("live_events");
  instances = await ServiceInstances.start(builtService().mainJs, 2, {
    env: {
      DATABASE_URL: database.databaseUrl,
      DEMO: "false",
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
      DELIVERY_WORKER: "false",
      SUBSCRIPTION_POLL_MS: String(FALLBACK_READ_MS),
      SUBSCRIPTION_POLL_IDLE_MS: String(FALLBACK_READ_MS),
      SHUTDOWN_ACCEPT_MS: "100",
      SHUTDOWN_IDLE_MS: "100",
      // Redis carries wake-ups only: the events come from the feed.
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_KEY_PREFIX: `regapi-live-${process.pid}-${onMysqlFamily ? "mysql" : "sqlite"}:`,
    },
  });
}, 240_000);

afterAll(async () => {
  for (const socket of sockets) await socket.dispose();
  await instances?.stopAll();
  await database?.remove();
});

const a = () => instances!.instance(1);
const b = () => instances!.instance(2);

function socketTo(url: string, closed?: (event: ClosedEvent) => void): WsClient {
  const socket = createClient({
    url: `${url.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: mapleHeaders,
    retryAttempts: 0,
    on: { closed: (event) => closed?.(event as ClosedEvent) },
  });
  sockets.push(socket);
  return socket;
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...mapleHeaders },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

let names = 0;
const restRenameOnB = () =>
  post(`${b().url}/reg/api2/users/`, {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: { first_name: `Across${++names}` },
  });
const restRenameOnA = () =>
  post(`${a().url}/reg/api2/users/`, {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: { first_name: `Along${++names}` },
  });
const graphqlRenameOnB = async () => {
  const answer = await post(`${b().url}/graphql`, {
    query: `mutation($groupId: Int!, $cloginId: Int!, $name: String!) {
      updateUser(input: { groupId: $groupId, cloginId: $cloginId, values: { first_name: $name } }) { user { cloginId } }
    }`,
    variables: { groupId: MAPLE.groupId, cloginId: MAPLE.miles, name: `Gql${++names}` },
  });
  expect(answer.errors).toBeUndefined();
};

it("Apollo Client subscribed on A receives a REST write made through B, with the id and cursor B's feed holds", async () => {
  const client = new ApolloClient({ link: new GraphQLWsLink(socketTo(a().url)), cache: new InMemoryCache() });
  const received = new Promise<{ eventId: string; cursor: string; type: string; cloginId: number }>(
    (resolve, reject) => {
      const subscription = client
        .subscribe({ query: RegistrationChanged, variables: { groupId: MAPLE.groupId } })
        .subscribe({
          next: (result) => {
            if (result.error) return reject(result.error);
            if (result.data) {
              subscription.unsubscribe();
              resolve(result.data.registrationChanged);
            }
          },
          error: reject,
        });
    },
  );
  const event = await writeUntilReceived(received, restRenameOnB);
  expect(event).toMatchObject({ type: "USER_UPDATED", cloginId: MAPLE.miles });
  const feed = (await post(`${b().url}/graphql`, {
    query: `{ events(groupId: ${MAPLE.groupId}, first: 500) { edges { cursor node { eventId } } } }`,
  })) as { data: { events: { edges: { cursor: string; node: { eventId: string } }[] } } };
  expect(feed.data.events.edges).toContainEqual({ cursor: event.cursor, node: { eventId: event.eventId } });
});

it("urql subscribed on A receives a GraphQL mutation made through B", async () => {
  const socket = socketTo(a().url);
  const client = urqlOverSocket(`${a().url}/graphql`, socket);
  const received = new Promise<{ type: string; cloginId: number }>((resolve, reject) => {
    const { unsubscribe } = client
      .subscription(UserChanged, { groupId: MAPLE.groupId, cloginId: MAPLE.miles })
      .subscribe((result) => {
        if (result.error) return reject(result.error);
        if (!result.data) return;
        unsubscribe();
        resolve(result.data.userChanged);
      });
  });
  expect(await writeUntilReceived(received, graphqlRenameOnB)).toMatchObject({
    type: "USER_UPDATED",
    cloginId: MAPLE.miles,
  });
});

it("a subscriber on A receives a write made through A itself (woken in process)", async () => {
  const socket = socketTo(a().url);
  const received = new Promise<{ type: string; cloginId: number }>((resolve, reject) => {
    const dispose = socket.subscribe(
      { query: `subscription { userChanged(groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.miles}) { type cloginId } }` },
      {
        next: (result) => {
          dispose();
          if (result.errors) reject(new Error(JSON.stringify(result.errors)));
          else resolve((result.data as { userChanged: { type: string; cloginId: number } }).userChanged);
        },
        error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
        complete: () => undefined,
      },
    );
  });
  expect(await writeUntilReceived(received, restRenameOnA)).toEqual({ type: "USER_UPDATED", cloginId: MAPLE.miles });
});

it("SIGTERM closes A's WebSockets with 1012 (reconnect elsewhere) and A exits 0", async () => {
  let closedWith: (event: ClosedEvent) => void = () => undefined;
  const closed = new Promise<ClosedEvent>((resolve) => (closedWith = resolve));
  const socket = socketTo(a().url, closedWith);
  const completed = new Promise<void>((resolve) =>
    socket.subscribe(
      { query: `subscription { userChanged(groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.miles}) { eventId } }` },
      { next: () => undefined, error: () => resolve(), complete: () => resolve() },
    ),
  );
  // Subscribed once an event arrives; then stop A.
  const firstEvent = new Promise<void>((resolve) =>
    socket.subscribe(
      { query: `subscription { registrationChanged(groupId: ${MAPLE.groupId}) { eventId } }` },
      { next: () => resolve(), error: () => resolve(), complete: () => undefined },
    ),
  );
  await writeUntilReceived(firstEvent, restRenameOnB);
  const exit = a().terminate();
  expect((await within(closed, 10_000, "close")).code).toBe(1012);
  await within(completed, 10_000, "end of the subscription");
  expect(await exit).toEqual({ code: 0, signal: null });
});
