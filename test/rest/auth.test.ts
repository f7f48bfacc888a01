import { Status } from "../../src/entities";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { expectLegacyError } from "../support/legacy-error";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const REFUSED = "Authentication failed: Api-Id, Api-User and Api-Token must match an active API account.";
const STALE = "Timestamp must be Unix seconds (or milliseconds, 13 digits) within 300 s of the server clock.";
const listProjects = { action: "get_project_list", group_id: MAPLE.groupId, doc: {} };
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("authentication through HTTP (contract §2)", () => {
  const without = (name: keyof typeof mapleHeaders) =>
    Object.fromEntries(Object.entries(mapleHeaders).filter(([k]) => k !== name));

  for (const name of ["Api-Id", "Api-User", "Api-Token"] as const) {
    it(`a missing ${name} is 401 UNAUTHENTICATED with the common message`, async () => {
      const res = await postRest(t.app, "/reg/api2/projects/", listProjects, without(name));
      expectLegacyError(res, 401, "UNAUTHENTICATED", { msg: REFUSED });
    });
  }

  it("every credential failure gets the same body (it never says which header was wrong)", async () => {
    const variants: Record<string, string>[] = [
      {},
      without("Api-Id"),
      without("Api-User"),
      without("Api-Token"),
      { ...mapleHeaders, "Api-Id": "99999" },
      { ...mapleHeaders, "Api-Id": "not-a-number" },
      { ...mapleHeaders, "Api-User": "someone@maple.test" },
      { ...mapleHeaders, "Api-Token": "demo-token-maple-15264" },
      { ...mapleHeaders, "Api-Token": "" },
      { ...mapleHeaders, "Api-Id": OTHER.apiId }, // a real account, with another account's user and token
      { "Api-Id": "20002", "Api-User": "old@other.test", "Api-Token": "inactive-token-20002" },
    ];
    const bodies = [];
    for (const headers of variants)
      bodies.push(
        expectLegacyError(await postRest(t.app, "/reg/api2/projects/", listProjects, headers), 401, "UNAUTHENTICATED", {
          msg: REFUSED,
        }),
      );
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });

  it("an inactive account (20002) is 401 UNAUTHENTICATED", async () => {
    const res = await postRest(
      t.app,
      "/reg/api2/projects/",
      { ...listProjects, group_id: OTHER.groupId },
      { "Api-Id": "20002", "Api-User": "old@other.test", "Api-Token": "inactive-token-20002" },
    );
    expectLegacyError(res, 401, "UNAUTHENTICATED", { msg: REFUSED });
  });

  it("header names are matched in any case, and Api-User's value too", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", listProjects, {
      "api-id": MAPLE.apiId,
      "API-USER": MAPLE.apiUser.toUpperCase(),
      "aPi-ToKeN": MAPLE.apiToken,
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it("a fresh Timestamp (Unix seconds) is accepted", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", listProjects, {
      ...mapleHeaders,
      Timestamp: String(nowSeconds()),
    });
    expect(res.status).toBe(200);
  });

  it("a fresh Timestamp in milliseconds (13 digits) is accepted (contract §17)", async () => {
    const res = await postRest(t.app, "projects", listProjects, { ...mapleHeaders, Timestamp: String(Date.now()) });
    expect(res.status).toBe(200);
  });

  it("a Timestamp in milliseconds 400 s off is 401 STALE_TIMESTAMP: the window applies to both units", async () => {
    const res = await postRest(t.app, "projects", listProjects, {
      ...mapleHeaders,
      Timestamp: String(Date.now() - 400_000),
    });
    expect([res.status, res.body.error_code, res.body.msg]).toEqual([401, "STALE_TIMESTAMP", STALE]);
  });

  it("a Timestamp 290 s off is still inside the window", async () => {
    for (const offset of [-290, 290]) {
      const res = await postRest(t.app, "/reg/api2/projects/", listProjects, {
        ...mapleHeaders,
        Timestamp: String(nowSeconds() + offset),
      });
      expect(res.status).toBe(200);
    }
  });

  for (const [name, value] of [
    ["more than 300 s old", () => String(nowSeconds() - 400)],
    ["more than 300 s ahead", () => String(nowSeconds() + 400)],
    ["not an integer (text)", () => "yesterday"],
    ["not an integer (decimal)", () => `${nowSeconds()}.5`],
    ["empty", () => ""],
  ] as const) {
    it(`a Timestamp ${name} is 401 STALE_TIMESTAMP`, async () => {
      const res = await postRest(t.app, "/reg/api2/projects/", listProjects, { ...mapleHeaders, Timestamp: value() });
      expectLegacyError(res, 401, "STALE_TIMESTAMP", { msg: STALE });
    });
  }

  it("a stale Timestamp with wrong credentials is UNAUTHENTICATED (credentials first)", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", listProjects, {
      ...mapleHeaders,
      "Api-Token": "wrong",
      Timestamp: "1",
    });
    expectLegacyError(res, 401, "UNAUTHENTICATED", { msg: REFUSED });
  });

  it("authentication comes before the envelope: an invalid body without credentials is 401", async () => {
    const res = await postRest(t.app, "/reg/api2/statuses/", { nothing: true }, {});
    expectLegacyError(res, 401, "UNAUTHENTICATED", { msg: REFUSED });
  });

  it("authentication comes before the action name: an unknown action without credentials is 401", async () => {
    const res = await postRest(t.app, "/reg/api2/users/", { action: "nope", group_id: 1 }, {});
    expectLegacyError(res, 401, "UNAUTHENTICATED", { msg: REFUSED });
  });

  it("a refused call writes nothing", async () => {
    const before = await t.dataSource.manager.count(Status);
    const res = await postRest(
      t.app,
      "/reg/api2/statuses/",
      { action: "create", group_id: MAPLE.groupId, doc: { status_name: "Sneaky", color: "#000000" } },
      { ...mapleHeaders, "Api-Token": "wrong" },
    );
    expect(res.status).toBe(401);
    expect(await t.dataSource.manager.count(Status)).toBe(before);
  });
});

describe("group ownership (contract §2)", () => {
  const forbidden = (groupId: number) => `group_id ${groupId} is not a project of your organization`;
  const MISSING = 999999999;

  for (const [endpoint, body] of [
    ["projects", (groupId: number) => ({ action: "get_project_list", group_id: groupId, doc: {} })],
    [
      "statuses",
      (groupId: number) => ({
        action: "create",
        group_id: groupId,
        doc: { status_name: "Ownership probe", color: "#101010" },
      }),
    ],
  ] as const) {
    it(`/${endpoint}/: a foreign project and a missing project get identical 403 bodies but for request_id`, async () => {
      const foreign = await postRest(t.app, `/reg/api2/${endpoint}/`, body(OTHER.groupId), mapleHeaders);
      const missing = await postRest(t.app, `/reg/api2/${endpoint}/`, body(MISSING), mapleHeaders);
      const foreignBody = expectLegacyError(foreign, 403, "FORBIDDEN", { msg: forbidden(OTHER.groupId) });
      const missingBody = expectLegacyError(missing, 403, "FORBIDDEN", { msg: forbidden(MISSING) });
      expect({ ...foreignBody, msg: "" }).toEqual({ ...missingBody, msg: "" });
      expect(foreign.body.msg.replace(String(OTHER.groupId), "N")).toBe(missing.body.msg.replace(String(MISSING), "N"));
      expect(foreign.body.request_id).not.toBe(missing.body.request_id);
    });

    it(`/${endpoint}/: another organization cannot use a Maple project`, async () => {
      const res = await postRest(t.app, `/reg/api2/${endpoint}/`, body(MAPLE.groupId), {
        "Api-Id": OTHER.apiId,
        "Api-User": OTHER.apiUser,
        "Api-Token": OTHER.apiToken,
      });
      expectLegacyError(res, 403, "FORBIDDEN", { msg: forbidden(MAPLE.groupId) });
    });
  }

  it("the owner of the foreign project is served", async () => {
    const res = await postRest(
      t.app,
      "/reg/api2/projects/",
      { ...listProjects, group_id: OTHER.groupId },
      { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken },
    );
    expect(res.status).toBe(200);
    expect(res.body.projects.map((p: { group_id: string }) => p.group_id)).toEqual([String(OTHER.groupId)]);
  });

  it("a forbidden statuses create writes nothing", async () => {
    const before = await t.dataSource.manager.count(Status);
    const res = await postRest(
      t.app,
      "/reg/api2/statuses/",
      { action: "create", group_id: OTHER.groupId, doc: { status_name: "Intruder", color: "#111111" } },
      mapleHeaders,
    );
    expect(res.status).toBe(403);
    expect(await t.dataSource.manager.count(Status)).toBe(before);
  });
});
