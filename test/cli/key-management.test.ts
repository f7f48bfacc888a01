import request from "supertest";
import { hashApiToken } from "../../src/auth/secrets";
import { rotateApiKey } from "../../src/cli/api-key.service";
import { ApiAccount } from "../../src/entities";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { outputFields, regapi } from "./support/run-in-process";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Credentials {
  apiId: string;
  apiUser: string;
  apiToken: string;
}

/** One authenticated REST call (get_project_list); the HTTP status says whether the key works. */
async function statusWith(key: Credentials): Promise<number> {
  const response = await request(t.app)
    .post("/reg/api2/projects/")
    .set({ "Api-Id": key.apiId, "Api-User": key.apiUser, "Api-Token": key.apiToken })
    .send({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
  return response.status;
}

async function newKey(user: string): Promise<Credentials> {
  const run = await regapi(["api-key", "create", "--org", "1", "--user", user], t.state);
  expect(run.code).toBe(0);
  const fields = outputFields(run.stdout);
  return { apiId: fields["Api-Id"], apiUser: fields["Api-User"], apiToken: fields["Api-Token"] };
}

describe("regapi org list", () => {
  it("lists every organization with its id, name, projects and active keys", async () => {
    const run = await regapi(["org", "list"], t.state);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      "id  name         projects  active keys",
      "1   Maple Camps  3         1",
      "2   Other Org    1         1",
      "",
    ]);
  });
});

describe("regapi api-key list", () => {
  it("lists an organization's accounts with id, user, active and created, never a token or its hash", async () => {
    const run = await regapi(["api-key", "list", "--org", "2"], t.state);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^api-id\s+api-user\s+active\s+created\s+old token valid until\s+scope\s+groups$/);
    expect(lines[1]).toMatch(/^20001\s+api@other\.test\s+yes\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+-\s+all\s+all$/);
    expect(lines[2]).toMatch(/^20002\s+old@other\.test\s+no \(revoked\)\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+-\s+all\s+all$/);
    expect(lines).toHaveLength(3);
    expect(run.stdout).not.toContain(OTHER.apiToken);
    expect(run.stdout).not.toContain(hashApiToken(OTHER.apiToken));
  });

  it("refuses an organization that does not exist", async () => {
    const run = await regapi(["api-key", "list", "--org", "999"], t.state);
    expect(run).toEqual({ code: 1, stdout: "", stderr: "regapi: organization 999 does not exist\n" });
  });
});

describe("regapi api-key revoke", () => {
  it("stops the key at once, through HTTP; revoking again changes nothing", async () => {
    const key = await newKey("revoke-me@maple.test");
    expect(await statusWith(key)).toBe(200);

    const run = await regapi(["api-key", "revoke", key.apiId], t.state);
    expect(run).toEqual({
      code: 0,
      stdout: `revoked Api-Id ${key.apiId} (revoke-me@maple.test); its token no longer authenticates\n`,
      stderr: "",
    });
    expect(await statusWith(key)).toBe(401);

    const again = await regapi(["api-key", "revoke", key.apiId], t.state);
    expect(again.stdout).toBe(`Api-Id ${key.apiId} (revoke-me@maple.test) was already revoked; nothing changed\n`);
    const listed = await regapi(["api-key", "list", "--org", "1"], t.state);
    expect(listed.stdout).toMatch(new RegExp(`^${key.apiId}\\s+revoke-me@maple\\.test\\s+no \\(revoked\\)`, "m"));
  });

  it("refuses an account that does not exist, and a malformed id", async () => {
    expect(await regapi(["api-key", "revoke", "424242"], t.state)).toEqual({
      code: 1,
      stdout: "",
      stderr: "regapi: API account 424242 does not exist\n",
    });
    const malformed = await regapi(["api-key", "revoke", "abc"], t.state);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/value 'abc' is invalid for argument 'api-id'/);
  });
});

describe("regapi api-key rotate", () => {
  it("prints a new token once; old and new both work during the grace period, only hashes are stored", async () => {
    const key = await newKey("rotate-grace@maple.test");
    const run = await regapi(["api-key", "rotate", key.apiId], t.state);
    expect(run.code).toBe(0);
    const printed = outputFields(run.stdout);
    expect(printed).toEqual({ "Api-Id": key.apiId, "Api-User": key.apiUser, "Api-Token": expect.any(String) });
    expect(printed["Api-Token"]).not.toBe(key.apiToken);
    expect(run.stderr).toMatch(/^The old token keeps working until \S+Z \(API_KEY_ROTATION_GRACE_S=3600\)\.\n/);
    const rotated: Credentials = { ...key, apiToken: printed["Api-Token"] };

    expect(await statusWith(rotated)).toBe(200);
    expect(await statusWith(key)).toBe(200);

    const stored = await t.dataSource.manager.findOneByOrFail(ApiAccount, { id: Number(key.apiId) });
    expect(stored.tokenHash).toBe(hashApiToken(rotated.apiToken));
    expect(stored.previousTokenHash).toBe(hashApiToken(key.apiToken));
    const untilMs = stored.previousTokenExpiresAt!.getTime() - Date.now();
    expect(untilMs).toBeGreaterThan(3590_000);
    expect(untilMs).toBeLessThanOrEqual(3600_000);

    const listed = await regapi(["api-key", "list", "--org", "1"], t.state);
    expect(listed.stdout).toMatch(
      new RegExp(`^${key.apiId}\\s+rotate-grace@maple\\.test\\s+yes\\s+\\S+\\s+\\S+Z\\s+all\\s+all$`, "m"),
    );
  });

  it("two rotations at once run one after the other: the second keeps the first's new token as the old one", async () => {
    const key = await newKey("rotate-twice@maple.test");
    const apiId = Number(key.apiId);
    const [first, second] = await Promise.all([
      rotateApiKey(t.context(), apiId, 3600),
      rotateApiKey(t.context(), apiId, 3600),
    ]);
    const stored = await t.dataSource.manager.findOneByOrFail(ApiAccount, { id: apiId });
    const hashes = [first, second].map((rotated) => hashApiToken(rotated.apiToken));
    // Whichever ran second replaced the other's token, which keeps working; the original is gone.
    expect(hashes).toContain(stored.tokenHash);
    expect(stored.previousTokenHash).toBe(hashes.find((hash) => hash !== stored.tokenHash));
    expect(await statusWith({ ...key, apiToken: first.apiToken })).toBe(200);
    expect(await statusWith({ ...key, apiToken: second.apiToken })).toBe(200);
    expect(await statusWith(key)).toBe(401);
  });

  it("stops the old token once the grace period is over", async () => {
    const key = await newKey("rotate-expiry@maple.test");
    const run = await regapi(["api-key", "rotate", key.apiId], t.state, {
      env: { API_KEY_ROTATION_GRACE_S: "1" },
    });
    const rotated: Credentials = { ...key, apiToken: outputFields(run.stdout)["Api-Token"] };
    expect(await statusWith(key)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await statusWith(key)).toBe(401);
    expect(await statusWith(rotated)).toBe(200);
  });

  it("with API_KEY_ROTATION_GRACE_S=0 stops the old token at once", async () => {
    const key = await newKey("rotate-now@maple.test");
    const run = await regapi(["api-key", "rotate", key.apiId], t.state, {
      env: { API_KEY_ROTATION_GRACE_S: "0" },
    });
    expect(run.stderr).toMatch(/^The old token stopped working now/);
    expect(await statusWith(key)).toBe(401);
    expect(await statusWith({ ...key, apiToken: outputFields(run.stdout)["Api-Token"] })).toBe(200);
  });

  it("a second rotation ends the first one's grace: only the latest replaced token still works", async () => {
    const first = await newKey("rotate-twice@maple.test");
    const second = outputFields((await regapi(["api-key", "rotate", first.apiId], t.state)).stdout)["Api-Token"];
    const third = outputFields((await regapi(["api-key", "rotate", first.apiId], t.state)).stdout)["Api-Token"];
    expect(await statusWith(first)).toBe(401);
    expect(await statusWith({ ...first, apiToken: second })).toBe(200);
    expect(await statusWith({ ...first, apiToken: third })).toBe(200);
  });

  it("revoking a rotated key stops the replaced token too", async () => {
    const key = await newKey("rotate-revoke@maple.test");
    const rotated = outputFields((await regapi(["api-key", "rotate", key.apiId], t.state)).stdout)["Api-Token"];
    await regapi(["api-key", "revoke", key.apiId], t.state);
    expect(await statusWith(key)).toBe(401);
    expect(await statusWith({ ...key, apiToken: rotated })).toBe(401);
  });

  it("refuses a revoked account and one that does not exist, changing nothing", async () => {
    const before = await t.dataSource.manager.findOneByOrFail(ApiAccount, { id: 20002 });
    expect(await regapi(["api-key", "rotate", "20002"], t.state)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "regapi: API account 20002 is revoked; a revoked key cannot be rotated (create a new one with api-key create)\n",
    });
    expect(await t.dataSource.manager.findOneByOrFail(ApiAccount, { id: 20002 })).toEqual(before);
    expect((await regapi(["api-key", "rotate", "424242"], t.state)).stderr).toBe(
      "regapi: API account 424242 does not exist\n",
    );
  });
});

describe("regapi demo on a database that holds the demo", () => {
  it("warns when the demo token no longer authenticates", async () => {
    const other = await regapi(["api-key", "rotate", MAPLE.apiId], t.state, {
      env: { API_KEY_ROTATION_GRACE_S: "0" },
    });
    expect(other.code).toBe(0);
    const run = await regapi(["demo"], t.state);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^the demo data is already there/);
    expect(run.stderr).toMatch(/^The demo token no longer authenticates \(revoked or rotated\)/);
  });
});
