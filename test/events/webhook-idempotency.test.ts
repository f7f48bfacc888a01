import request from "supertest";
import { DEFAULT_DELIVERY } from "../../src/config/config";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { watchTables } from "../support/tables";
import { startTestApp, type TestApp } from "../support/test-app";

// createWebhookEndpoint answers the signing secret once, and a secret is kept only where it signs
// (webhook_endpoint): its answer may never reach the idempotency table. A mutation selecting it
// refuses Idempotency-Key before anything runs; every other mutation keeps the key as before.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { delivery: { ...DEFAULT_DELIVERY, webhookAllowPrivate: true } } });
});
afterAll(() => t.close());

let serial = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++serial}`;

const send = (body: object, key?: string, headers: Record<string, string> = mapleHeaders) => {
  const req = request(t.app).post("/graphql").set(headers).set("Content-Type", "application/json");
  if (key !== undefined) req.set("Idempotency-Key", key);
  return req.send(body);
};

const CREATE = `mutation Create($url: String!) {
  createWebhookEndpoint(input: { url: $url, events: ["user.created"] }) { endpoint { endpointId } secret }
}`;

/** Everything the idempotency table holds, as one text. */
async function idempotencyTable(): Promise<string> {
  return JSON.stringify(await t.dataSource.query(`SELECT * FROM idempotency_key`));
}

const endpointCount = async () =>
  Number(((await t.dataSource.query(`SELECT COUNT(*) AS n FROM webhook_endpoint`)) as { n: unknown }[])[0].n);

describe("Idempotency-Key and createWebhookEndpoint", () => {
  it("is refused with 400 IDEMPOTENCY_KEY_INVALID before anything runs: no endpoint, no stored answer", async () => {
    const watch = await watchTables(t.dataSource);
    const key = uniqueKey("create-endpoint");
    const body = { query: CREATE, variables: { url: "http://127.0.0.1:9/refused" } };
    for (const attempt of [1, 2]) {
      const res = await send(body, key);
      expect({ attempt, status: res.status }).toEqual({ attempt, status: 400 });
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toEqual([
        {
          message: expect.stringMatching(
            /^createWebhookEndpoint cannot be sent with Idempotency-Key: its answer holds a secret shown only once/,
          ),
          extensions: { code: "IDEMPOTENCY_KEY_INVALID" },
        },
      ]);
      expect(res.headers["idempotent-replayed"]).toBeUndefined();
    }
    await watch.expectNothingWritten();
  });

  it("without the header it creates the endpoint, and the idempotency table never holds the secret", async () => {
    const before = await endpointCount();
    const refused = await send({ query: CREATE, variables: { url: "http://127.0.0.1:9/kept" } }, uniqueKey("kept"));
    expect(refused.status).toBe(400);
    const created = await send({ query: CREATE, variables: { url: "http://127.0.0.1:9/kept" } });
    expect(created.status).toBe(200);
    const secret = created.body.data.createWebhookEndpoint.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(await endpointCount()).toBe(before + 1);
    const table = await idempotencyTable();
    expect(table).not.toContain(secret);
    expect(table).not.toContain("whsec_");
  });

  it("recognises the field under an alias, through fragments, and next to another mutation", async () => {
    const watch = await watchTables(t.dataSource);
    const documents = [
      `mutation { hook: createWebhookEndpoint(input: { url: "http://127.0.0.1:9/a", events: ["user.created"] }) { secret } }`,
      `mutation { ...Hook } fragment Hook on Mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/b", events: ["user.created"] }) { secret } }`,
      `mutation { ... on Mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/c", events: ["user.created"] }) { secret } } }`,
      `mutation {
        createStatus(input: { groupId: ${MAPLE.groupId}, name: "Beside a hook", color: "#336699" }) { status { id } }
        createWebhookEndpoint(input: { url: "http://127.0.0.1:9/d", events: ["user.created"] }) { secret }
      }`,
    ];
    for (const query of documents) {
      const res = await send({ query }, uniqueKey("variant"));
      expect({ query, status: res.status, code: res.body.errors?.[0]?.extensions?.code }).toEqual({
        query,
        status: 400,
        code: "IDEMPOTENCY_KEY_INVALID",
      });
    }
    await watch.expectNothingWritten();
  });

  it("looks at the operation that runs: another operation of the same document keeps the key and is replayed", async () => {
    const query = `${CREATE}
      mutation Other { createStatus(input: { groupId: ${MAPLE.groupId}, name: "Idempotent beside", color: "#336699" }) { status { id } } }`;
    const key = uniqueKey("other-operation");
    const body = { query, operationName: "Other" };
    const first = await send(body, key);
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    const replay = await send(body, key);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.text).toBe(first.text);
  });

  it("the other webhook mutations keep the key: an update is replayed", async () => {
    const created = await send({ query: CREATE, variables: { url: "http://127.0.0.1:9/update-me" } });
    const endpointId = created.body.data.createWebhookEndpoint.endpoint.endpointId as number;
    const body = {
      query: `mutation($e: Int!) { updateWebhookEndpoint(input: { endpointId: $e, active: false }) { endpoint { endpointId active } } }`,
      variables: { e: endpointId },
    };
    const key = uniqueKey("update-endpoint");
    const first = await send(body, key);
    expect(first.body.data.updateWebhookEndpoint).toEqual({ endpoint: { endpointId, active: false } });
    const replay = await send(body, key);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(await idempotencyTable()).not.toContain("whsec_");
  });

  it("an unauthenticated request is refused as usual (401), not for its key", async () => {
    const res = await send({ query: CREATE, variables: { url: "http://127.0.0.1:9/anon" } }, uniqueKey("anon"), {
      ...mapleHeaders,
      "Api-Token": "wrong",
    });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});
