import type { Response } from "supertest";
import { recountProjectCounters } from "../../src/domain/projects/project-counters";
import { listProjects } from "../../src/domain/projects/projects.service";
import { Payment, Registration } from "../../src/entities";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { expectLegacyError } from "../support/legacy-error";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const list = (doc: unknown, headers: Record<string, string> = mapleHeaders, groupId: number | string = MAPLE.groupId) =>
  postRest(t.app, "projects", { action: "get_project_list", group_id: groupId, doc }, headers);

const ids = (res: Response) => res.body.projects.map((p: { group_id: string }) => p.group_id);

describe("projects get_project_list (contract §7.4)", () => {
  it("answers the response shape key by key, flags echoed as booleans, HTTP 200", async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Object.keys(res.body)).toEqual([
      "projects",
      "success",
      "only_archived",
      "with_archived",
      "with_group_totals",
    ]);
    expect(res.body.success).toBe(true);
    expect(res.body.only_archived).toBe(false);
    expect(res.body.with_archived).toBe(false);
    expect(res.body.with_group_totals).toBe(false);
  });

  it("a project record has the contract §7.4 fields, every one a string, creation_date YYYY-MM-DD HH:MM:SS UTC", async () => {
    const res = await list({});
    expect(res.body.projects[0]).toEqual({
      group_id: "100909072",
      group_name: "Summer Camp 2027",
      group_currency: "USD",
      creation_date: "2026-01-05 10:00:00",
      _excluded: "0",
    });
    expect(Object.keys(res.body.projects[0])).toEqual([
      "group_id",
      "group_name",
      "group_currency",
      "creation_date",
      "_excluded",
    ]);
    for (const project of res.body.projects) {
      for (const value of Object.values(project)) expect(typeof value).toBe("string");
      expect(project.creation_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
    expect(res.body.projects[1]).toEqual({
      group_id: "100909073",
      group_name: "Jazz Workshop 2027",
      group_currency: "EUR",
      creation_date: "2026-03-01 08:00:00",
      _excluded: "0",
    });
  });

  it("by default lists the organization's non-archived projects only, sorted by group_id", async () => {
    expect(ids(await list({}))).toEqual(["100909072", "100909073"]);
  });

  it("with_archived adds the archived projects, still sorted by group_id", async () => {
    const res = await list({ with_archived: true });
    expect(ids(res)).toEqual(["100909071", "100909072", "100909073"]);
    expect(res.body.with_archived).toBe(true);
  });

  it('only_archived lists only archived projects, _excluded "1"', async () => {
    const res = await list({ only_archived: true });
    expect(res.body.projects).toEqual([
      {
        group_id: "100909071",
        group_name: "Summer Camp 2026",
        group_currency: "USD",
        creation_date: "2025-01-05 10:00:00",
        _excluded: "1",
      },
    ]);
    expect(res.body.only_archived).toBe(true);
  });

  it("only_archived wins when both flags are sent, and both are echoed", async () => {
    const res = await list({ only_archived: true, with_archived: true });
    expect(ids(res)).toEqual(["100909071"]);
    expect(res.body).toMatchObject({ only_archived: true, with_archived: true, with_group_totals: false });
  });

  it("explicit false flags behave as absent ones", async () => {
    expect(ids(await list({ only_archived: false, with_archived: false, with_group_totals: false }))).toEqual([
      "100909072",
      "100909073",
    ]);
  });

  it("never lists another organization's projects", async () => {
    const all = ids(await list({ with_archived: true }));
    expect(all).not.toContain("200000001");
  });

  it("group_id may be any project of the organization, an archived one too, or a digit string", async () => {
    expect(ids(await list({}, mapleHeaders, MAPLE.archivedGroupId))).toEqual(["100909072", "100909073"]);
    expect(ids(await list({}, mapleHeaders, String(MAPLE.jazzGroupId)))).toEqual(["100909072", "100909073"]);
  });

  it("unknown doc members are ignored", async () => {
    expect(ids(await list({ with_archived: true, page: 2 }))).toHaveLength(3);
  });

  it("an empty array doc counts as an empty object", async () => {
    expect(ids(await list([]))).toEqual(["100909072", "100909073"]);
  });
});

describe("projects get_project_list: group_totals (contract §7, §8)", () => {
  it("with_group_totals adds group_totals of string values computed from the demo data", async () => {
    const res = await list({ with_group_totals: true, with_archived: true });
    expect(res.status).toBe(200);
    expect(res.body.with_group_totals).toBe(true);
    const byId = Object.fromEntries(res.body.projects.map((p: { group_id: string }) => [p.group_id, p]));
    expect(Object.keys(byId["100909072"])).toEqual([
      "group_id",
      "group_name",
      "group_currency",
      "creation_date",
      "_excluded",
      "group_totals",
    ]);
    // Miles (Accepted), his child (no status) and Bill (Withdrawn, excluding): 3 users, 2 active;
    // Miles ordered Week 1 (350.00) and paid 100.00.
    expect(byId["100909072"].group_totals).toEqual({
      total_users: "3",
      total_active_users: "2",
      total_order: "350.00",
      total_paid: "100.00",
      total_balance: "250.00",
    });
    expect(Object.keys(byId["100909072"].group_totals)).toEqual([
      "total_users",
      "total_active_users",
      "total_order",
      "total_paid",
      "total_balance",
    ]);
    expect(byId["100909073"].group_totals).toEqual({
      total_users: "1",
      total_active_users: "1",
      total_order: "0.00",
      total_paid: "0.00",
      total_balance: "0.00",
    });
    expect(byId["100909071"].group_totals).toEqual({
      total_users: "0",
      total_active_users: "0",
      total_order: "0.00",
      total_paid: "0.00",
      total_balance: "0.00",
    });
  });

  it("without with_group_totals no record has group_totals", async () => {
    const res = await list({ with_archived: true });
    for (const project of res.body.projects) expect(project).not.toHaveProperty("group_totals");
  });

  it("totals follow the writes: set_status moves a registration out of the excluding status; rows written around the API count after a recount", async () => {
    const setStatus = (statusId: number) =>
      postRest(
        t.app,
        "users",
        {
          action: "set_status",
          group_id: MAPLE.groupId,
          clogin_id: String(MAPLE.bill),
          status_id: String(statusId),
          doc: [],
        },
        mapleHeaders,
      );
    const bill = await t.dataSource.manager.findOneByOrFail(Registration, {
      projectId: MAPLE.groupId,
      personId: MAPLE.bill,
    });
    expect((await setStatus(9)).status).toBe(200);
    // No API call records a payment: one written straight into the table is counted by `regapi recount`.
    const payment = await t.dataSource.manager.insert(Payment, {
      registrationId: bill.uid,
      amountCents: 1234,
      paidAt: new Date(),
    });
    const recount = () => recountProjectCounters(t.context(), MAPLE.groupId);
    try {
      expect((await list({ with_group_totals: true })).body.projects[0].group_totals).toMatchObject({
        total_active_users: "3",
        total_paid: "100.00",
      });
      await recount();
      const res = await list({ with_group_totals: true });
      expect(res.body.projects[0].group_totals).toEqual({
        total_users: "3",
        total_active_users: "3",
        total_order: "350.00",
        total_paid: "112.34",
        total_balance: "237.66",
      });
    } finally {
      await t.dataSource.manager.delete(Payment, { id: payment.identifiers[0].id });
      await setStatus(10);
      await recount();
    }
    expect((await list({ with_group_totals: true })).body.projects[0].group_totals).toMatchObject({
      total_active_users: "2",
      total_paid: "100.00",
    });
  });
});

describe("projects get_project_list: validation", () => {
  it("a missing doc is 400 naming doc (the seed requires it)", async () => {
    const res = await postRest(t.app, "projects", { action: "get_project_list", group_id: MAPLE.groupId });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      msg: "doc is required (a JSON object).",
      errors: [{ path: "doc", message: "is required (a JSON object)" }],
    });
  });

  for (const [member, value] of [
    ["with_archived", 2],
    ["only_archived", "yes"],
    ["with_group_totals", null],
  ] as const) {
    it(`a non-flag ${member} (${JSON.stringify(value)}) is 400 naming doc.${member}`, async () => {
      const res = await list({ [member]: value });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        errors: [{ path: `doc.${member}`, message: `must be true or false (or 1 or 0), got ${JSON.stringify(value)}` }],
      });
    });
  }

  it('contract §17: flags also accept 1/0 and "true"/"false"/"1"/"0", echoed as booleans', async () => {
    const res = await list({ with_archived: 1, only_archived: "false", with_group_totals: "1" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ with_archived: true, only_archived: false, with_group_totals: true });
    const strict = await list({ with_archived: true, only_archived: false, with_group_totals: true });
    expect(res.body.projects).toEqual(strict.body.projects);
  });
});

// Bulk organizations for the statement bound: ids far from the demo's, one account each.
function bulkOrganization(orgId: number, projectCount: number) {
  const base = orgId * 1_000_000;
  let nextClogin = base + 500_000;
  const projects = Array.from({ length: projectCount }, (_, i) => {
    const projectId = base + 1000 + i;
    const userCount = (i % 4) + 1;
    return {
      id: projectId,
      name: `Bulk ${orgId} project ${i}`,
      createdAt: "2026-05-01 12:00:00",
      archived: i === 1,
      statuses: [{ id: base + 10 * i + 1, name: "Gone", color: "#999999", isExcluded: 1 }],
      products: [{ id: base + 10 * i + 2, name: "Item", price: "12.50" }],
      users: Array.from({ length: userCount }, (_, j) => ({
        cloginId: nextClogin++,
        username: `u${orgId}-${i}-${j}@bulk.test`,
        statusId: j === 0 ? base + 10 * i + 1 : null,
        cart: [{ productId: base + 10 * i + 2, quantity: j + 1 }],
        payments: [{ amount: "5.00" }],
      })),
    };
  });
  // Stored in reverse, so sorting by group_id is the service's doing, not insertion order.
  projects.reverse();
  const account = { id: orgId * 10 + 1, user: `api@bulk${orgId}.test`, token: `bulk-token-${orgId}-secret` };
  return {
    fixture: {
      organizations: [{ id: orgId, name: `Bulk org ${orgId}`, apiAccounts: [{ ...account, active: true }], projects }],
    },
    headers: { "Api-Id": String(account.id), "Api-User": account.user, "Api-Token": account.token },
    groupId: base + 1000,
  };
}

/** What the bulk generator stored for project number i: n users, the first excluded, j+1 items of 12.50 each, 5.00 paid each. */
function expectedBulkTotals(i: number) {
  const n = (i % 4) + 1;
  const orderCents = (1250 * n * (n + 1)) / 2;
  return {
    total_users: String(n),
    total_active_users: String(n - 1),
    total_order: (orderCents / 100).toFixed(2),
    total_paid: (n * 5).toFixed(2),
    total_balance: ((orderCents - n * 500) / 100).toFixed(2),
  };
}

describe("projects get_project_list: statement bound", () => {
  const small = bulkOrganization(7, 1);
  const large = bulkOrganization(8, 30);
  beforeAll(async () => {
    await loadFixture(t.context(null), small.fixture);
    await loadFixture(t.context(null), large.fixture);
  });

  const call = (org: typeof small, doc: Record<string, boolean>) =>
    t.countStatements(() => list(doc, org.headers, org.groupId));

  it("the bulk organization's projects come sorted by group_id with correct totals", async () => {
    const { result: res } = await call(large, { with_archived: true, with_group_totals: true });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(Array.from({ length: 30 }, (_, i) => String(large.groupId + i)));
    res.body.projects.forEach((project: { group_totals: unknown; _excluded: string }, i: number) => {
      expect(project.group_totals).toEqual(expectedBulkTotals(i));
      expect(project._excluded).toBe(i === 1 ? "1" : "0");
    });
  });

  it("with totals costs the same number of SQL statements for 1 and for 30 projects", async () => {
    // Both accounts read once first: an account read is then kept for a few seconds (account cache).
    await call(small, {});
    await call(large, {});
    const one = await call(small, { with_archived: true, with_group_totals: true });
    const thirty = await call(large, { with_archived: true, with_group_totals: true });
    expect(one.result.body.projects).toHaveLength(1);
    expect(thirty.result.body.projects).toHaveLength(30);
    expect(thirty.statements).toBe(one.statements);
    // The list with its counters, one statement (the account is cached).
    expect(thirty.statements).toBe(1);
  });

  it("the default scope, with and without totals, costs the same for 1 and for 29 listed projects", async () => {
    for (const doc of [{ with_group_totals: true }, { with_group_totals: false }]) {
      const one = await call(small, doc);
      const many = await call(large, doc);
      expect(one.result.body.projects).toHaveLength(1);
      expect(many.result.body.projects).toHaveLength(29);
      expect(many.statements).toBe(one.statements);
    }
  });

  it("only_archived with totals lists the one archived bulk project with its totals", async () => {
    const { result: res } = await call(large, { only_archived: true, with_group_totals: true });
    expect(res.body.projects).toEqual([
      expect.objectContaining({
        group_id: String(large.groupId + 1),
        _excluded: "1",
        group_totals: expectedBulkTotals(1),
      }),
    ]);
  });

  it("the domain call (as GraphQL makes it) returns totals in cents", async () => {
    const listing = await listProjects(t.context(), {
      groupId: MAPLE.groupId,
      withArchived: false,
      onlyArchived: false,
      withGroupTotals: true,
    });
    expect(listing.map((p) => p.id)).toEqual([MAPLE.groupId, MAPLE.jazzGroupId]);
    expect(listing[0]).toEqual({
      id: MAPLE.groupId,
      name: "Summer Camp 2027",
      currency: "USD",
      createdAt: new Date("2026-01-05T10:00:00Z"),
      archived: false,
      totals: {
        totalUsers: 3,
        totalActiveUsers: 2,
        totalOrderCents: 35000,
        totalPaidCents: 10000,
        totalBalanceCents: 25000,
      },
    });
    const plain = await listProjects(t.context(), {
      groupId: MAPLE.groupId,
      withArchived: false,
      onlyArchived: false,
      withGroupTotals: false,
    });
    expect(plain[0]).not.toHaveProperty("totals");
  });
});
