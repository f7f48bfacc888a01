import { loadUserSummaries } from "../../src/domain/users/user-summary";
import { Registration } from "../../src/entities";
import { presentMetaInfo, presentUserInfo } from "../../src/rest/presenters/user-envelope";
import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const uidOf = async (groupId: number, cloginId: number) =>
  (await t.dataSource.manager.findOneByOrFail(Registration, { projectId: groupId, personId: cloginId })).uid;

describe("user summary (meta_info, contract §6)", () => {
  it("computes every key of the demo parent from the fixture data", async () => {
    const uid = await uidOf(MAPLE.groupId, MAPLE.miles);
    const summary = (await loadUserSummaries(t.dataSource.manager, [uid])).get(uid)!;
    expect(presentUserInfo(summary)).toEqual({
      clogin_id: "102670540",
      group_id: "100909072",
      connected_to: "102670540",
    });
    expect(presentMetaInfo(summary)).toEqual({
      u_name: "Miles Davis",
      total_forms: "3",
      completed_forms: "0",
      total_user_forms: "2",
      total_completed_user_forms: "0",
      total_user_mandatory_forms: "2",
      total_completed_user_mandatory_forms: "0",
      total_order: "350.00",
      total_paid: "100.00",
      total_balance: "250.00",
      status_id: "9",
      status_name: "Accepted",
      status_color: "#00AA00",
      application_date: "Feb 1, 2026 9:30 AM",
      application_date_raw: "2026-02-01 09:30:00",
      u_comments: "2",
      group_id: "100909072",
      uid: String(uid),
      clogin_id: "102670540",
      excluded: "0",
      connected_to: "102670540",
      total_user_tags: "1",
      user_tag_ids: "3",
      total_non_excluded_children: "1",
      star: "1",
      admin_initials: "DR",
      admin_color: "#3366FF",
      assigned_admin_id: "501",
    });
  });

  it("gives a child its parent's clogin_id and an excluded user excluded=1", async () => {
    const childUid = await uidOf(MAPLE.groupId, MAPLE.childKind);
    const billUid = await uidOf(MAPLE.groupId, MAPLE.bill);
    const summaries = await loadUserSummaries(t.dataSource.manager, [childUid, billUid]);
    const child = presentMetaInfo(summaries.get(childUid)!);
    expect(child.connected_to).toBe(String(MAPLE.miles));
    expect(child.status_id).toBe("0");
    expect(child.status_name).toBeNull();
    expect(child.user_tag_ids).toBeNull();
    expect(child.assigned_admin_id).toBeNull();
    expect(presentMetaInfo(summaries.get(billUid)!).excluded).toBe("1");
  });

  it("reads any number of users in the same number of statements", async () => {
    const uids = (await t.dataSource.manager.find(Registration)).map((r) => r.uid);
    const one = await t.countStatements(() => loadUserSummaries(t.dataSource.manager, uids.slice(0, 1)));
    const all = await t.countStatements(() => loadUserSummaries(t.dataSource.manager, uids));
    expect(all.result.size).toBe(uids.length);
    expect(all.statements).toBe(one.statements);
  });
});
