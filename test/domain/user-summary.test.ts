import { loadUserSummaries } from "../../src/domain/users/user-summary";
import { Registration } from "../../src/entities";
import { MAPLE } from "../fixtures/test-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { uidOf } from "../support/rows";

// The user summary in domain terms; how REST presents it is tested in test/rest/users-meta-info.test.ts.

let db: DomainDatabase;
beforeAll(async () => {
  db = await openDomainDatabase();
});
afterAll(() => db.dispose());

describe("user summary (domain)", () => {
  it("computes every figure of the demo parent from the fixture data", async () => {
    const uid = await uidOf(db.dataSource, MAPLE.groupId, MAPLE.miles);
    const summary = (await loadUserSummaries(db.dataSource.manager, [uid])).get(uid)!;
    expect(summary).toEqual({
      uid,
      groupId: MAPLE.groupId,
      cloginId: MAPLE.miles,
      connectedTo: MAPLE.miles,
      parentCloginId: null,
      name: "Miles Davis",
      totalForms: 3,
      completedForms: 0,
      totalUserForms: 2,
      totalCompletedUserForms: 0,
      totalUserMandatoryForms: 2,
      totalCompletedUserMandatoryForms: 0,
      totalOrderCents: 35000,
      totalPaidCents: 10000,
      totalBalanceCents: 25000,
      status: { id: 9, name: "Accepted", color: "#00AA00", isExcluded: false },
      applicationDate: new Date("2026-02-01T09:30:00Z"),
      // The fixture writes no change after applying: last changed when it applied.
      updatedAt: new Date("2026-02-01T09:30:00Z"),
      commentCount: 2,
      excluded: false,
      tagIds: [3],
      tags: [{ id: 3, name: "VIP" }],
      nonExcludedChildren: 1,
      star: true,
      assignedAdmin: { id: 501, initials: "DR", color: "#3366FF" },
    });
  });

  it("gives a child its parent and no status, tags or admin; an excluded status makes the user excluded", async () => {
    const childUid = await uidOf(db.dataSource, MAPLE.groupId, MAPLE.childKind);
    const billUid = await uidOf(db.dataSource, MAPLE.groupId, MAPLE.bill);
    const summaries = await loadUserSummaries(db.dataSource.manager, [childUid, billUid]);
    expect(summaries.get(childUid)).toMatchObject({
      parentCloginId: MAPLE.miles,
      status: null,
      tagIds: [],
      tags: [],
      assignedAdmin: null,
    });
    expect(summaries.get(billUid)).toMatchObject({ excluded: true, status: { isExcluded: true } });
  });

  it("reads any number of users in one statement, tags included (issue 12: meta_info for any number of users)", async () => {
    const uids = (await db.dataSource.manager.find(Registration)).map((r) => r.uid);
    const one = await db.countStatements(() => loadUserSummaries(db.dataSource.manager, uids.slice(0, 1)));
    const all = await db.countStatements(() => loadUserSummaries(db.dataSource.manager, uids));
    expect(all.result.size).toBe(uids.length);
    expect(all.statements).toBe(one.statements);
    expect(all.statements).toBe(1);
  });
});
