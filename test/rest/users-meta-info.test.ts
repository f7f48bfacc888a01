import { MAPLE } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { uidOf } from "../support/rows";
import { startTestApp, type TestApp } from "../support/test-app";

// meta_info and user_info (contract §6) of the demo users as the REST envelope presents them; an
// update without values changes nothing and answers the summary.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const summaryOf = (cloginId: number) =>
  postRest(t.app, "users", { action: "update", group_id: MAPLE.groupId, clogin_id: cloginId, doc: {} });

describe("user summary through REST (meta_info, contract §6)", () => {
  it("presents every key of the demo parent from the fixture data", async () => {
    const res = await summaryOf(MAPLE.miles);
    expect(res.status).toBe(200);
    expect(res.body.user_info).toEqual({
      clogin_id: "102670540",
      group_id: "100909072",
      connected_to: "102670540",
    });
    expect(res.body.meta_info).toEqual({
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
      uid: String(await uidOf(t.dataSource, MAPLE.groupId, MAPLE.miles)),
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

  it("gives a child its parent's clogin_id and nulls for what it lacks; an excluded user has excluded=1", async () => {
    const child = (await summaryOf(MAPLE.childKind)).body.meta_info;
    expect(child.connected_to).toBe(String(MAPLE.miles));
    expect(child.status_id).toBe("0");
    expect(child.status_name).toBeNull();
    expect(child.user_tag_ids).toBeNull();
    expect(child.assigned_admin_id).toBeNull();
    expect((await summaryOf(MAPLE.bill)).body.meta_info.excluded).toBe("1");
  });
});
