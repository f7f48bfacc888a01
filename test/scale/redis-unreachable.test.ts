import { createServer, type Server } from "node:net";
import { MAPLE } from "../fixtures/test-fixture";
import { regapi } from "../cli/support/run-in-process";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 21 deliverable 4: shared state speeds walks up and spreads key changes, it never fails a
// request. With REDIS_URL pointing at a port that accepts nothing, a get_user_list walk is
// answered page after page (each page a jump to its position) with the records of a walk without
// Redis, and the CLI says it could not tell the instances. Runs on SQLite and MariaDB.

let t: TestApp;
let closedPort: number;

beforeAll(async () => {
  // A port that was free a moment ago and is closed now: connecting is refused at once.
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  t = await startTestApp({
    config: { sharedState: { redisUrl: `redis://127.0.0.1:${closedPort}`, keyPrefix: "regapi-unreachable:" } },
  });
  expect((await regapi(["seed", "--group", String(MAPLE.groupId), "--users", "300"], t.state)).code).toBe(0);
}, 60_000);
afterAll(() => t.close());

const pageAt = (position: number) =>
  postRest(t.app, "users", {
    action: "get_user_list",
    group_id: MAPLE.groupId,
    doc: { starting_position: position },
  });

describe("Redis unreachable", () => {
  it("a get_user_list walk is answered page after page, every record once", async () => {
    const seen: string[] = [];
    const positions: number[] = [];
    let position: number | null = 0;
    while (position !== null) {
      positions.push(position);
      const res = await pageAt(position);
      expect(res.status).toBe(200);
      seen.push(...(res.body.users as { user_info: { clogin_id: string } }[]).map((user) => user.user_info.clogin_id));
      position = res.body.next_starting_position;
    }
    expect(positions.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe((await pageAt(0)).body.total_users);
  });

  it("the CLI revokes a key all the same, and says the instances will honour it within the cache TTL", async () => {
    const organizationId = Number(
      (await t.dataSource.query("SELECT organization_id FROM api_account WHERE id = ?", [Number(MAPLE.apiId)]))[0]
        .organization_id,
    );
    const created = await regapi(
      ["api-key", "create", "--org", String(organizationId), "--user", "unreachable@maple.test"],
      t.state,
    );
    expect(created.code).toBe(0);
    const apiId = /Api-Id: (\d+)/.exec(created.stdout)![1];
    const revoked = await regapi(["api-key", "revoke", apiId], t.state, {
      env: { REDIS_URL: `redis://127.0.0.1:${closedPort}`, REDIS_KEY_PREFIX: "regapi-unreachable:" },
    });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked Api-Id ${apiId}`);
    expect(revoked.stderr).toMatch(
      /^Could not tell running instances through Redis \(.*ECONNREFUSED.*\); they apply the change within ACCOUNT_CACHE_TTL_MS\.$/m,
    );
  });
});
