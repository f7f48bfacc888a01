import { createHash } from "node:crypto";
import request from "supertest";
import { RegistrantSession } from "../../src/entities";
import { MAPLE } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { watchTables } from "../support/tables";

// Issue 35 §3: a registrant portal that stands on its own. A backend holding the organization's
// key only logs the registrant in; the browser then works with its session alone: reads what it
// may add, adds it, refreshes the session and logs out, after which the token is refused.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const asSession = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  request(t.app)
    .post("/graphql")
    .set("Content-Type", "application/json")
    .set("Authorization", `Bearer ${token}`)
    .send({ query, variables });

async function openSession(cloginId: number = MAPLE.miles): Promise<{ token: string; expiresAt: string }> {
  // The backend's one call with the organization's key.
  const login = await postRest(t.app, "users", {
    action: "login",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: {},
  });
  expect(login.status).toBe(200);
  // The browser's, without API headers.
  const session = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {});
  expect(session.status).toBe(200);
  return { token: String(session.body.session_token), expiresAt: String(session.body.expires_at) };
}

const PORTAL = `{ me { cloginId cartLines { productId quantity } project { products { productId name } } } }`;
const ADD = `mutation($input: AddMyProductInput!) {
  addMyProduct(input: $input) { cartIds notices user { cartLines { productId quantity } } problems { field value reason message } }
}`;

describe("the portal flow over HTTP: login (backend, org key) → session → addMyProduct → logout → refused", () => {
  it("runs end to end with the session alone", async () => {
    const { token } = await openSession();
    const portal = await asSession(token, PORTAL);
    expect(portal.status).toBe(200);
    const offered = portal.body.data.me.project.products as { productId: number }[];
    expect(offered.length).toBeGreaterThan(0);
    const cart = portal.body.data.me.cartLines as { productId: number }[];
    const before = cart.length;
    const product = offered.find((candidate) => !cart.some((line) => line.productId === candidate.productId))!;
    expect(product).toBeDefined();

    const added = await asSession(token, ADD, {
      input: { productList: [{ productId: product.productId, quantity: 1 }] },
    });
    expect(added.status).toBe(200);
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data.addMyProduct.problems).toEqual([]);
    expect(added.body.data.addMyProduct.cartIds).toHaveLength(1);
    expect(added.body.data.addMyProduct.user.cartLines).toHaveLength(before + 1);
    expect(added.body.data.addMyProduct.user.cartLines).toContainEqual({
      productId: product.productId,
      quantity: 1,
    });

    const loggedOut = await asSession(token, "mutation { logout }");
    expect(loggedOut.body).toEqual({ data: { logout: true } });

    const refused = await asSession(token, PORTAL);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    const again = await asSession(token, "mutation { logout }");
    expect(again.status).toBe(401);
  });

  it("a product me.project.products does not offer (another project's, a private one) is refused in the payload; nothing is written", async () => {
    const { token } = await openSession(MAPLE.bill);
    const portal = await asSession(token, PORTAL);
    const offered = new Set((portal.body.data.me.project.products as { productId: number }[]).map((p) => p.productId));
    const [notOffered] = (await t.dataSource.query("SELECT id FROM product ORDER BY id")) as { id: number }[];
    const candidates = ((await t.dataSource.query("SELECT id FROM product ORDER BY id")) as { id: number }[])
      .map((row) => Number(row.id))
      .filter((id) => !offered.has(id));
    expect(candidates.length).toBeGreaterThan(0);
    expect(notOffered).toBeDefined();
    const watch = await watchTables(t.dataSource);
    const refused = await asSession(token, ADD, {
      input: { productList: [{ productId: candidates[0], quantity: 1 }] },
    });
    expect(refused.body.errors).toBeUndefined();
    expect(refused.body.data.addMyProduct).toMatchObject({
      cartIds: [],
      user: null,
      problems: [{ field: "input.productList[0].productId", value: String(candidates[0]), reason: "NOT_AVAILABLE" }],
    });
    const byName = await asSession(token, ADD, {
      input: { productList: [{ name: "My own", price: "1.00", quantity: 1 }] },
    });
    expect(byName.body.data.addMyProduct.problems).toMatchObject([
      { field: "input.productList[0].productId", reason: "REQUIRED" },
    ]);
    await watch.expectNothingWritten();
  });

  it("an API account may not use the registrant's mutations, nor a session the account's addProduct", async () => {
    const viaKey = await postRest(t.app, "/graphql", { query: "mutation { logout }" });
    expect(viaKey.body.errors[0].extensions.code).toBe("FORBIDDEN");
    const { token } = await openSession();
    const adminAdd = await asSession(
      token,
      `mutation { addProduct(input: { groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.miles}, productList: [{ productId: 1, quantity: 1 }] }) { cartIds } }`,
    );
    expect(adminAdd.body.errors[0].extensions.code).toBe("FORBIDDEN");
  });
});

describe("sessions: stored as hashes, refreshed within a bounded lifetime", () => {
  it("the table holds the token's SHA-256 only", async () => {
    const { token } = await openSession();
    const rows = (await t.dataSource.query("SELECT token_hash FROM registrant_session")) as { token_hash: string }[];
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    expect(rows.map((row) => row.token_hash)).toContain(hash);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("refreshSession slides the expiry 12 hours from now, never past 7 days after the session opened", async () => {
    const { token, expiresAt } = await openSession();
    const refreshed = await asSession(token, "mutation { refreshSession { expiresAt endsAtLatest } }");
    const fresh = refreshed.body.data.refreshSession as { expiresAt: string; endsAtLatest: string };
    expect(new Date(fresh.expiresAt).getTime()).toBeGreaterThanOrEqual(new Date(expiresAt).getTime());
    expect(new Date(fresh.expiresAt).getTime()).toBeLessThanOrEqual(Date.now() + 12 * 3600 * 1000 + 1000);

    // A session opened 6 days 23 hours ago: a refresh gives it one more hour, not 12.
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    const opened = new Date(Date.now() - (7 * 24 - 1) * 3600 * 1000);
    const sessions = t.dataSource.getRepository(RegistrantSession);
    await sessions.update({ tokenHash: hash }, { createdAt: opened });
    const bounded = await asSession(token, "mutation { refreshSession { expiresAt endsAtLatest } }");
    const last = bounded.body.data.refreshSession as { expiresAt: string; endsAtLatest: string };
    const bound = opened.getTime() + 7 * 24 * 3600 * 1000;
    expect(Math.abs(new Date(last.endsAtLatest).getTime() - bound)).toBeLessThan(2000);
    expect(new Date(last.expiresAt).getTime()).toBe(new Date(last.endsAtLatest).getTime());

    // Past the bound the session no longer authenticates.
    await sessions.update({ tokenHash: hash }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await asSession(token, "{ me { cloginId } }")).status).toBe(401);
  });
});
