import { DEFAULT_DELIVERY } from "../../src/config/config";
import { startDeliveryWorker, type DeliveryWorker } from "../../src/delivery/delivery-worker";
import { MAPLE } from "../fixtures/test-fixture";
import { startReceiver } from "../events/support/receiver";
import { FAST_DELIVERY, silentLogger } from "../events/support/worker-setup";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 35 §5: Project.tags and webhookDeliveries page both ways (first/after and last/before)
// and tell their totalCount, as users does. Backward pages keep the connection's order; walking
// back from the end meets every item once, and the pages agree with one forward page of all.

jest.setTimeout(60_000);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } } });
});
afterAll(() => t.close());

interface Page {
  totalCount: number;
  edges: { cursor: string; node: Record<string, number> }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** Walks a connection backward from its end, `size` at a time: the ids in connection order. */
async function walkBack(read: (last: number, before: string | null) => Promise<Page>, id: string, size: number) {
  const ids: number[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const page = await read(size, before);
    ids.unshift(...page.edges.map((edge) => edge.node[id]));
    expect(page.pageInfo.hasNextPage).toBe(before !== null);
    if (!page.pageInfo.hasPreviousPage) return ids;
    before = page.pageInfo.startCursor;
  }
  throw new Error("did not reach the start");
}

describe("Project.tags", () => {
  const TAGS = `query($g: Int!, $first: Int, $after: String, $last: Int, $before: String) {
    project(groupId: $g) { tags(first: $first, after: $after, last: $last, before: $before) {
      totalCount edges { cursor node { tagId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }
  }`;
  const tags = async (variables: Record<string, unknown>): Promise<Page> => {
    const answer = await graphql<{ project: { tags: Page } }>(t.app, TAGS, { g: MAPLE.groupId, ...variables });
    expect(answer.errors).toBeUndefined();
    return answer.data!.project.tags;
  };

  it("totalCount is the project's tags on every page; last/before walk back to the forward order", async () => {
    const all = await tags({ first: 100 });
    const ids = all.edges.map((edge) => edge.node.tagId);
    expect(ids.length).toBeGreaterThan(1);
    expect(all.totalCount).toBe(ids.length);
    expect((await tags({ first: 1 })).totalCount).toBe(ids.length);

    const lastOne = await tags({ last: 1 });
    expect(lastOne.edges.map((edge) => edge.node.tagId)).toEqual(ids.slice(-1));
    expect(lastOne.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(lastOne.totalCount).toBe(ids.length);
    expect(await walkBack((last, before) => tags({ last, before }), "tagId", 1)).toEqual(ids);
  });

  it("first and last together are refused, naming both", async () => {
    const answer = await graphql(t.app, TAGS, { g: MAPLE.groupId, first: 1, last: 1 });
    expect(answer.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(answer.errors?.[0].message).toMatch(/last and first page in opposite directions/);
  });
});

describe("webhookDeliveries", () => {
  let worker: DeliveryWorker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });

  it("totalCount is the endpoint's log; last/before walk back from the oldest delivery to the newest-first order", async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const created = await graphql<{ createWebhookEndpoint: { endpoint: { endpointId: number } } }>(
        t.app,
        `
          mutation ($input: CreateWebhookEndpointInput!) {
            createWebhookEndpoint(input: $input) {
              endpoint {
                endpointId
              }
            }
          }
        `,
        { input: { url: receiver.url(), events: ["user.updated"], groupIds: [MAPLE.groupId] } },
      );
      const endpointId = created.data!.createWebhookEndpoint.endpoint.endpointId;
      worker = startDeliveryWorker({ state: t.state, logger: silentLogger, config: FAST_DELIVERY });
      for (const name of ["A", "B", "C", "D", "E"])
        await postRest(t.app, "users", {
          action: "update",
          group_id: MAPLE.groupId,
          clogin_id: MAPLE.bill,
          doc: { first_name: `Paged ${name}` },
        }).expect(200);
      await receiver.waitFor(5);

      const DELIVERIES = `query($id: Int!, $first: Int, $after: String, $last: Int, $before: String) {
        webhookDeliveries(endpointId: $id, first: $first, after: $after, last: $last, before: $before) {
          totalCount edges { cursor node { deliveryId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      }`;
      const deliveries = async (variables: Record<string, unknown>): Promise<Page> => {
        const answer = await graphql<{ webhookDeliveries: Page }>(t.app, DELIVERIES, { id: endpointId, ...variables });
        expect(answer.errors).toBeUndefined();
        return answer.data!.webhookDeliveries;
      };
      const all = await deliveries({ first: 100 });
      const ids = all.edges.map((edge) => edge.node.deliveryId);
      expect(ids).toHaveLength(5);
      expect(all.totalCount).toBe(5);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids); // newest first

      const oldestTwo = await deliveries({ last: 2 });
      expect(oldestTwo.edges.map((edge) => edge.node.deliveryId)).toEqual(ids.slice(-2));
      expect(oldestTwo.totalCount).toBe(5);
      expect(await walkBack((last, before) => deliveries({ last, before }), "deliveryId", 2)).toEqual(ids);
      // The default page, as before: the 20 newest.
      expect((await deliveries({})).edges.map((edge) => edge.node.deliveryId)).toEqual(ids);
    } finally {
      await receiver.close();
    }
  });
});
