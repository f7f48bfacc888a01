import { startDeliveryWorker } from "../../src/delivery/delivery-worker";
import { DEFAULT_DELIVERY } from "../../src/config/config";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { startReceiver } from "./support/receiver";
import { FAST_DELIVERY, silentLogger, until } from "./support/worker-setup";

// Webhook management through GraphQL (contract §16, §18), scoped to the caller's organization.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    fixture: labFixtureWithUsers(740000, 4, "wh"),
    config: { delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } },
  });
});
afterAll(() => t.close());

const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    endpoint { id endpointId url events groupIds active } secret problems { field value reason message }
  }
}`;

describe("webhook management (GraphQL)", () => {
  it("createWebhookEndpoint returns the endpoint and its secret once; webhookEndpoints lists it without any secret", async () => {
    const res = await graphql<{
      createWebhookEndpoint: { endpoint: { id: string; endpointId: number }; secret: string };
    }>(t.app, CREATE, {
      input: { url: "http://127.0.0.1:9/hook", events: ["user.created", "form.submitted"], groupIds: [LAB.groupId] },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.createWebhookEndpoint).toMatchObject({
      endpoint: {
        url: "http://127.0.0.1:9/hook",
        events: ["user.created", "form.submitted"],
        groupIds: [LAB.groupId],
        active: true,
      },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
    });
    const list = await graphql<{ webhookEndpoints: Record<string, unknown>[] }>(
      t.app,
      `
        {
          webhookEndpoints {
            id
            endpointId
            url
            events
            groupIds
            active
            disabledReason
          }
        }
      `,
    );
    expect(list.data!.webhookEndpoints).toContainEqual(
      expect.objectContaining({
        id: res.data!.createWebhookEndpoint.endpoint.id,
        endpointId: res.data!.createWebhookEndpoint.endpoint.endpointId,
        active: true,
      }),
    );
    expect(JSON.stringify(list.body ?? list)).not.toContain(res.data!.createWebhookEndpoint.secret);
  });

  it("an unknown event type or a bad URL: the payload's problems name the input members; nothing is created", async () => {
    const before = await t.dataSource.query("SELECT COUNT(*) AS n FROM webhook_endpoint");
    const res = await graphql<{
      createWebhookEndpoint: { endpoint: null; secret: null; problems: { field: string; reason: string }[] };
    }>(t.app, CREATE, {
      input: { url: "ftp://example.com/x", events: ["user.deleted"], groupIds: [200000001] },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.createWebhookEndpoint).toMatchObject({ endpoint: null, secret: null });
    expect(res.data!.createWebhookEndpoint.problems.map(({ field, reason }) => ({ field, reason }))).toEqual([
      { field: "input.url", reason: "INVALID_FORMAT" },
      { field: "input.events[0]", reason: "NOT_ALLOWED" },
    ]);
    expect(await t.dataSource.query("SELECT COUNT(*) AS n FROM webhook_endpoint")).toEqual(before);
  });

  it("a foreign project: NOT_AVAILABLE naming input.groupIds", async () => {
    const res = await graphql<{ createWebhookEndpoint: { problems: { field: string; reason: string }[] } }>(
      t.app,
      CREATE,
      { input: { url: "http://127.0.0.1:9/hook", events: ["user.created"], groupIds: [200000001] } },
    );
    expect(res.data!.createWebhookEndpoint.problems.map(({ field, reason }) => ({ field, reason }))).toEqual([
      { field: "input.groupIds", reason: "NOT_AVAILABLE" },
    ]);
  });

  it("update switches an endpoint off and on, delete removes it; a deleted (or another organization's) id is NOT_FOUND", async () => {
    const created = await graphql<{ createWebhookEndpoint: { endpoint: { endpointId: number } } }>(t.app, CREATE, {
      input: { url: "http://127.0.0.1:9/other", events: ["user.updated"] },
    });
    const endpointId = created.data!.createWebhookEndpoint.endpoint.endpointId;
    const off = await graphql<{ updateWebhookEndpoint: { endpoint: { active: boolean; events: string[] } } }>(
      t.app,
      `mutation { updateWebhookEndpoint(input: { endpointId: ${endpointId}, active: false, events: ["user.created"] }) { endpoint { active events } } }`,
    );
    expect(off.data!.updateWebhookEndpoint).toEqual({ endpoint: { active: false, events: ["user.created"] } });
    const refused = await graphql<{ updateWebhookEndpoint: unknown }>(
      t.app,
      `mutation { updateWebhookEndpoint(input: { endpointId: ${endpointId}, url: "not a url" }) { endpoint { url } problems { field reason } } }`,
    );
    expect(refused.data!.updateWebhookEndpoint).toEqual({
      endpoint: null,
      problems: [{ field: "input.url", reason: "INVALID_FORMAT" }],
    });
    const deleted = await graphql<{ deleteWebhookEndpoint: number }>(
      t.app,
      `mutation { deleteWebhookEndpoint(endpointId: ${endpointId}) }`,
    );
    expect(deleted.data!.deleteWebhookEndpoint).toBe(endpointId);
    const again = await graphql(t.app, `mutation { deleteWebhookEndpoint(endpointId: ${endpointId}) }`);
    expect(again.errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });
});

describe("private addresses (WEBHOOK_ALLOW_PRIVATE off)", () => {
  it("URLs resolving to loopback, private or link-local addresses are refused", async () => {
    const strict = await startTestApp();
    try {
      for (const url of [
        "http://127.0.0.1/x",
        "http://localhost:8080/x",
        "http://10.1.2.3/x",
        "http://169.254.169.254/latest",
        "http://[::1]/x",
      ]) {
        const res = await graphql<{ createWebhookEndpoint: { problems: { field: string; message: string }[] } }>(
          strict.app,
          CREATE,
          { input: { url, events: ["user.created"] } },
        );
        expect(res.data!.createWebhookEndpoint.problems).toHaveLength(1);
        expect(res.data!.createWebhookEndpoint.problems[0]).toMatchObject({
          field: "input.url",
          reason: "NOT_ALLOWED",
          value: url,
        });
        expect(res.data!.createWebhookEndpoint.problems[0].message).toMatch(/loopback, private or link-local/);
      }
    } finally {
      await strict.close();
    }
  });
});

describe("the delivery log and redelivery", () => {
  it("webhookDeliveries pages an endpoint's deliveries with their attempts; redeliverWebhookEvent sends a failed event again (same id)", async () => {
    const receiver = await startReceiver(() => 503);
    const worker = startDeliveryWorker({
      state: t.state,
      logger: silentLogger,
      config: { ...FAST_DELIVERY, retryWindowSeconds: 1, retryBaseMs: 2000 },
    });
    try {
      const created = await graphql<{ createWebhookEndpoint: { endpoint: { endpointId: number } } }>(t.app, CREATE, {
        input: { url: receiver.url(), events: ["user.updated"], groupIds: [LAB.groupId] },
      });
      const endpointId = created.data!.createWebhookEndpoint.endpoint.endpointId;
      for (const name of ["A", "B", "C"])
        await postRest(t.app, "users", {
          action: "update",
          group_id: LAB.groupId,
          clogin_id: 740000,
          doc: { first_name: name },
        });
      await receiver.waitFor(3);
      const page = async (after: string | null) =>
        graphql<{
          webhookDeliveries: {
            nodes: {
              id: string;
              deliveryId: number;
              endpointId: number;
              eventId: string;
              state: string;
              attemptCount: number;
              attempts: { statusCode: number | null }[];
            }[];
            hasNextPage: boolean;
            endCursor: string;
            edges: { cursor: string; node: { deliveryId: number } }[];
            pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
          };
        }>(
          t.app,
          `
            query ($id: Int!, $after: String) {
              webhookDeliveries(endpointId: $id, first: 2, after: $after) {
                nodes {
                  id
                  deliveryId
                  endpointId
                  eventId
                  eventType
                  state
                  attemptCount
                  attempts {
                    statusCode
                    durationMs
                    error
                  }
                }
                hasNextPage
                endCursor
                edges {
                  cursor
                  node {
                    deliveryId
                  }
                }
                pageInfo {
                  hasNextPage
                  hasPreviousPage
                  startCursor
                  endCursor
                }
              }
            }
          `,
          { id: endpointId, after },
        );
      // A one-second retry window with a two-second first retry: each delivery fails after one attempt.
      await until(
        async () => (await page(null)).data!.webhookDeliveries.nodes.every((node) => node.state === "failed"),
        5000,
        "failed deliveries",
      );
      const first = (await page(null)).data!.webhookDeliveries;
      expect(first.nodes).toHaveLength(2);
      expect(first.nodes.map((node) => node.endpointId)).toEqual([endpointId, endpointId]);
      expect(first.nodes[0].deliveryId).toBeGreaterThan(first.nodes[1].deliveryId);
      expect(new Set(first.nodes.map((node) => node.id)).size).toBe(2);
      expect(first.hasNextPage).toBe(true);
      expect(first.nodes[0].attempts).toEqual([expect.objectContaining({ statusCode: 503 })]);
      // Issue 24: the Relay connection members agree with the deprecated ones they replace.
      expect(first.edges.map((edge) => edge.node.deliveryId)).toEqual(first.nodes.map((node) => node.deliveryId));
      expect(first.pageInfo).toEqual({
        hasNextPage: true,
        hasPreviousPage: false,
        startCursor: first.edges[0].cursor,
        endCursor: first.edges[1].cursor,
      });
      expect(first.endCursor).toBe(first.pageInfo.endCursor);
      const second = (await page(first.endCursor)).data!.webhookDeliveries;
      expect(second.nodes).toHaveLength(1);
      expect(second.hasNextPage).toBe(false);
      expect(second.pageInfo).toEqual({
        hasNextPage: false,
        hasPreviousPage: true,
        startCursor: second.edges[0].cursor,
        endCursor: second.edges[0].cursor,
      });
      // An edge's cursor continues after that edge: after the first edge comes the second delivery.
      const afterFirstEdge = (await page(first.edges[0].cursor)).data!.webhookDeliveries;
      expect(afterFirstEdge.edges[0].node.deliveryId).toBe(first.edges[1].node.deliveryId);

      receiver.setBehaviour(() => 200);
      const eventId = second.nodes[0].eventId;
      const redelivered = await graphql<{ redeliverWebhookEvent: number }>(
        t.app,
        `
          mutation ($id: String!) {
            redeliverWebhookEvent(eventId: $id)
          }
        `,
        { id: eventId },
      );
      expect(redelivered.data!.redeliverWebhookEvent).toBe(1);
      await receiver.waitFor(4);
      expect(receiver.received[3].headers["regapi-event-id"]).toBe(eventId);
      const unknown = await graphql(
        t.app,
        `
          mutation {
            redeliverWebhookEvent(eventId: "nope")
          }
        `,
      );
      expect(unknown.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
