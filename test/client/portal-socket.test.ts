import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_SUBSCRIPTIONS } from "../../src/config/config";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { firstResult, within, wsClient } from "./support/subscriptions";

// A registrant portal's WebSocket (issue 35 §3): a connection without credentials is told both
// ways to authenticate, as an HTTP request is; and `logout` ends the session's WebSocket too,
// closed with 4403 at the next re-check.
jest.setTimeout(60_000);

const REAUTH_MS = 500;
let t: TestApp;
let server: Server;
let wsUrl: string;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { subscriptions: { ...DEFAULT_SUBSCRIPTIONS, reauthIntervalMs: REAUTH_MS } } });
  server = createServer(t.app);
  t.regapi.attach(server);
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  wsUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  server.closeAllConnections();
  await t.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const USER_CHANGED = `subscription ($groupId: Int!, $cloginId: Int!) {
  userChanged(groupId: $groupId, cloginId: $cloginId) { eventId }
}`;

async function sessionToken(): Promise<string> {
  const login = await postRest(t.app, "users", {
    action: "login",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: {},
  }).expect(200);
  const redeemed = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {}).expect(200);
  return redeemed.body.session_token as string;
}

it("without credentials: the subscription is answered UNAUTHENTICATED naming the session and the API key, as over HTTP", async () => {
  const { client } = wsClient(wsUrl, {});
  closers.push(() => client.dispose());
  const answer = await within(
    firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.miles }).result,
    5000,
    "answer",
  );
  const http = await graphql(t.app, "{ me { cloginId } }", {}, {});
  expect(http.status).toBe(401);
  expect(http.errors![0].message).toMatch(/Authorization: Bearer <session token>.*Api-Id, Api-User and Api-Token/);
  expect(answer.errors).toEqual([{ message: http.errors![0].message, extensions: { code: "UNAUTHENTICATED" } }]);
});

it("logout closes the session's WebSocket with 4403 within SUBSCRIPTION_REAUTH_MS", async () => {
  const token = await sessionToken();
  const { client, closed } = wsClient(wsUrl, { authorization: `Bearer ${token}` });
  closers.push(() => client.dispose());
  const subscribed = firstResult(client, USER_CHANGED, { groupId: MAPLE.groupId, cloginId: MAPLE.miles });
  closers.push(subscribed.dispose);
  subscribed.result.catch(() => undefined); // ends with the close below
  // Checked again at least once while the session lives: kept open.
  await new Promise((resolve) => setTimeout(resolve, 2 * REAUTH_MS));
  let open = true;
  void closed.then(() => (open = false));
  expect(open).toBe(true);

  const loggedOut = await graphql(t.app, "mutation { logout }", {}, { authorization: `Bearer ${token}` });
  expect(loggedOut.body).toEqual({ data: { logout: true } });
  const started = Date.now();
  expect((await within(closed, 5000, "close")).code).toBe(4403);
  expect(Date.now() - started).toBeLessThan(REAUTH_MS + 1500);
});
