import { ApiAccount } from "../../src/entities";
import { mapleHeaders, MAPLE } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 12: authentication keeps the API account it read for ACCOUNT_CACHE_TTL_MS, so a busy
// client does not pay a statement per request for it. Revocation by this process takes effect at
// once (key management forgets the account); a change made elsewhere (another process) within
// the TTL. Unknown ids are kept too, so a known and an unknown Api-Id cost the same.

// Long enough that two requests in a row fall within it on a busy machine; the expiry test waits it out.
const TTL_MS = 2000;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { accountCacheTtlMs: TTL_MS } });
});
afterAll(() => t.close());

const list = (headers: Record<string, string> = mapleHeaders) =>
  postRest(t.app, "projects", { action: "get_project_list", group_id: MAPLE.groupId, doc: {} }, headers);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the API account cache (ACCOUNT_CACHE_TTL_MS)", () => {
  it("a second request within the TTL reads no account; a wrong token is still refused", async () => {
    const first = await t.countStatements(() => list());
    const second = await t.countStatements(() => list());
    expect([first.result.status, second.result.status]).toEqual([200, 200]);
    expect(second.statements).toBe(first.statements - 1);
    const wrong = await list({ ...mapleHeaders, "Api-Token": "not-the-token" });
    expect(wrong.status).toBe(401);
  });

  it("an unknown Api-Id is kept too: the second refusal reads nothing", async () => {
    const unknown = { ...mapleHeaders, "Api-Id": "424242" };
    const first = await t.countStatements(() => list(unknown));
    const second = await t.countStatements(() => list(unknown));
    expect([first.result.status, second.result.status]).toEqual([401, 401]);
    expect([first.statements, second.statements]).toEqual([1, 0]);
  });

  it("an account deactivated by another process stops authenticating once the TTL has passed", async () => {
    expect((await list()).status).toBe(200);
    // Written straight to the table, as the CLI of another process would.
    await t.dataSource.manager.update(ApiAccount, { id: Number(MAPLE.apiId) }, { active: false });
    try {
      await sleep(TTL_MS + 100);
      expect((await list()).status).toBe(401);
    } finally {
      await t.dataSource.manager.update(ApiAccount, { id: Number(MAPLE.apiId) }, { active: true });
      await sleep(TTL_MS + 100);
    }
    expect((await list()).status).toBe(200);
  });
});
