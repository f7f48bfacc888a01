import request from "supertest";
import { DEFAULT_DELIVERY } from "../../src/config/config";
import { startDeliveryWorker } from "../../src/delivery/delivery-worker";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";
import { startReceiver } from "../events/support/receiver";
import { FAST_DELIVERY, silentLogger, until } from "../events/support/worker-setup";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { OTHER } from "../fixtures/test-fixture";
import { graphql, graphqlData } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { STATEMENT_COUNTING } from "../support/test-config";

// WebhookEndpoint and WebhookDelivery follow the one id rule: `id` is the Node id, the numbers are
// endpointId / deliveryId, and node/nodes refetch them with the authorization of webhookEndpoints
// and webhookDeliveries (an API account of the owning organization only).

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    fixture: labFixtureWithUsers(750000, 2, "hooknode"),
    config: { ...STATEMENT_COUNTING, delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } },
  });
});
afterAll(() => t.close());

const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };
const NOT_VISIBLE = { message: "No object with this id is visible to you.", code: "NOT_FOUND" };

const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id endpointId } secret }
}`;
type Created = { createWebhookEndpoint: { endpoint: { id: string; endpointId: number } } };

const DELIVERIES = `query($endpointId: Int!) {
  webhookDeliveries(endpointId: $endpointId, first: 10) {
    nodes { id deliveryId endpointId eventId eventType state attempts { statusCode } }
  }
}`;
type Delivery = { id: string; deliveryId: number; endpointId: number; eventId: string; eventType: string };

const NODE = `query($id: ID!) {
  node(id: $id) {
    __typename id
    ... on WebhookEndpoint { endpointId url events active }
    ... on WebhookDelivery { deliveryId endpointId eventId eventType state attempts { statusCode } }
  }
}`;

async function nodeAnswer(id: string, headers?: Record<string, string>) {
  const response = await graphql<{ node: Record<string, unknown> | null }>(t.app, NODE, { id }, headers);
  return {
    node: response.data?.node ?? null,
    errors: (response.errors ?? []).map((error) => ({ message: error.message, code: error.extensions?.code })),
  };
}

let mapleEndpoint: { id: string; endpointId: number };
let otherEndpoint: { id: string; endpointId: number };
let mapleDelivery: Delivery;

beforeAll(async () => {
  const receiver = await startReceiver(() => 200);
  const worker = startDeliveryWorker({ state: t.state, logger: silentLogger, config: FAST_DELIVERY });
  try {
    const maple = await graphql<Created>(t.app, CREATE, {
      input: { url: receiver.url(), events: ["user.updated"], groupIds: [LAB.groupId] },
    });
    mapleEndpoint = maple.data!.createWebhookEndpoint.endpoint;
    const other = await graphql<Created>(
      t.app,
      CREATE,
      { input: { url: "http://127.0.0.1:9/other-org", events: ["user.created"] } },
      otherHeaders,
    );
    otherEndpoint = other.data!.createWebhookEndpoint.endpoint;
    await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: 750000,
      doc: { first_name: "Hook" },
    });
    await receiver.waitFor(1);
    const deliveries = async () =>
      (
        await graphqlData<{ webhookDeliveries: { nodes: (Delivery & { state: string })[] } }>(t.app, DELIVERIES, {
          endpointId: mapleEndpoint.endpointId,
        })
      ).webhookDeliveries.nodes;
    await until(async () => (await deliveries()).every((node) => node.state === "delivered"), 5000, "delivered");
    [mapleDelivery] = await deliveries();
  } finally {
    await worker.stop();
    await receiver.close();
  }
});

describe("webhook Node ids", () => {
  it("id is the Node id; endpointId and deliveryId are the numbers the other fields take", () => {
    expect(mapleEndpoint.id).toBe(encodeNodeId("WebhookEndpoint", { endpointId: mapleEndpoint.endpointId }));
    expect(mapleDelivery.endpointId).toBe(mapleEndpoint.endpointId);
    expect(mapleDelivery.id).toBe(
      encodeNodeId("WebhookDelivery", { endpointId: mapleEndpoint.endpointId, deliveryId: mapleDelivery.deliveryId }),
    );
    expect(mapleDelivery.eventType).toBe("user.updated");
  });

  it("webhookEndpoints, updateWebhookEndpoint and node give the same id for the same endpoint", async () => {
    const { webhookEndpoints } = await graphqlData<{ webhookEndpoints: { id: string; endpointId: number }[] }>(
      t.app,
      `{ webhookEndpoints { id endpointId } }`,
    );
    expect(webhookEndpoints).toContainEqual(mapleEndpoint);
    const updated = await graphqlData<{ updateWebhookEndpoint: { endpoint: { id: string } } }>(
      t.app,
      `mutation($e: Int!) { updateWebhookEndpoint(input: { endpointId: $e, active: true }) { endpoint { id } } }`,
      { e: mapleEndpoint.endpointId },
    );
    expect(updated.updateWebhookEndpoint.endpoint.id).toBe(mapleEndpoint.id);
  });

  it("node refetches an endpoint and a delivery as the lists show them", async () => {
    expect(await nodeAnswer(mapleEndpoint.id)).toEqual({
      node: {
        __typename: "WebhookEndpoint",
        id: mapleEndpoint.id,
        endpointId: mapleEndpoint.endpointId,
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
        events: ["user.updated"],
        active: true,
      },
      errors: [],
    });
    expect(await nodeAnswer(mapleDelivery.id)).toEqual({
      node: { __typename: "WebhookDelivery", ...mapleDelivery },
      errors: [],
    });
    const { nodes } = await graphqlData<{ nodes: { __typename: string; id: string }[] }>(
      t.app,
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`,
      { ids: [mapleDelivery.id, mapleEndpoint.id] },
    );
    expect(nodes).toEqual([
      { __typename: "WebhookDelivery", id: mapleDelivery.id },
      { __typename: "WebhookEndpoint", id: mapleEndpoint.id },
    ]);
  });
});

describe("webhook node authorization", () => {
  it("another organization's endpoint or delivery answers exactly as a missing one, both ways round", async () => {
    const missing = [
      encodeNodeId("WebhookEndpoint", { endpointId: 999_999 }),
      encodeNodeId("WebhookDelivery", { endpointId: mapleEndpoint.endpointId, deliveryId: 999_999 }),
      // A real delivery named under an endpoint it does not belong to.
      encodeNodeId("WebhookDelivery", { endpointId: otherEndpoint.endpointId, deliveryId: mapleDelivery.deliveryId }),
    ];
    for (const id of [otherEndpoint.id, ...missing]) {
      expect(await nodeAnswer(id)).toEqual({ node: null, errors: [NOT_VISIBLE] });
    }
    for (const id of [mapleEndpoint.id, mapleDelivery.id, ...missing]) {
      expect(await nodeAnswer(id, otherHeaders)).toEqual({ node: null, errors: [NOT_VISIBLE] });
    }
    expect((await nodeAnswer(otherEndpoint.id, otherHeaders)).node).toMatchObject({
      __typename: "WebhookEndpoint",
      id: otherEndpoint.id,
    });
  });

  it("nodes answers a foreign webhook id as null with its own NOT_FOUND, next to a readable one", async () => {
    const response = await graphql<{ nodes: ({ id: string } | null)[] }>(
      t.app,
      `
        query ($ids: [ID!]!) {
          nodes(ids: $ids) {
            id
          }
        }
      `,
      { ids: [mapleEndpoint.id, otherEndpoint.id] },
    );
    expect(response.data?.nodes).toEqual([{ id: mapleEndpoint.id }, null]);
    expect(response.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [["nodes", 1], "NOT_FOUND"],
    ]);
  });

  it("a registrant session cannot read its organization's webhooks through node", async () => {
    const loggedIn = await postRest(t.app, "users", {
      action: "login",
      group_id: LAB.groupId,
      clogin_id: LAB.cy,
      doc: {},
    });
    const redeemed = await request(t.app)
      .post("/reg/api2/session/")
      .set("Content-Type", "application/json")
      .send({ user_token: loggedIn.body.user_token });
    const bearer = { Authorization: `Bearer ${redeemed.body.session_token as string}` };
    for (const id of [mapleEndpoint.id, mapleDelivery.id]) {
      expect(await nodeAnswer(id, bearer)).toEqual({ node: null, errors: [NOT_VISIBLE] });
    }
  });

  it("node(id) of a delivery costs the statements of a one-delivery page of webhookDeliveries", async () => {
    const page = await t.countStatements(() =>
      graphqlData(
        t.app,
        `query($e: Int!) { webhookDeliveries(endpointId: $e, first: 1) { nodes { id attempts { statusCode } } } }`,
        {
          e: mapleEndpoint.endpointId,
        },
      ),
    );
    const viaNode = await t.countStatements(() =>
      graphqlData(
        t.app,
        `query($id: ID!) { node(id: $id) { id ... on WebhookDelivery { attempts { statusCode } } } }`,
        {
          id: mapleDelivery.id,
        },
      ),
    );
    expect(viaNode.statements).toBe(page.statements);
  });

  it("a deleted endpoint's id is NOT_FOUND like any missing id", async () => {
    const created = await graphqlData<Created>(t.app, CREATE, {
      input: { url: "http://127.0.0.1:9/doomed", events: ["user.updated"] },
    });
    const doomed = created.createWebhookEndpoint.endpoint;
    expect((await nodeAnswer(doomed.id)).node).toMatchObject({ id: doomed.id });
    await graphqlData(t.app, `mutation($e: Int!) { deleteWebhookEndpoint(endpointId: $e) }`, {
      e: doomed.endpointId,
    });
    expect(await nodeAnswer(doomed.id)).toEqual({ node: null, errors: [NOT_VISIBLE] });
  });
});
