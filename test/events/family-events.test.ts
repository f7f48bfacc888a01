import { dispatchLiveEvent, type LiveEvent, type LiveEventSink } from "../../src/domain/events/live-events";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// A child's change moves its parent's updatedAt too (the parent's answer holds its children), so
// by the rule that every change updatedSince reports is an event that reaches subscribers, the
// child's event names the parent (data.parent_clogin_id) and a subscription to the parent's
// registration receives it. The fixture's family: Miles and his child 102670541; Bill alone.

const CHILD = 102670541;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const updatedAt = async (cloginId: number) =>
  (
    await graphql<{ user: { metaInfo: { updatedAt: string } } }>(
      t.app,
      `{ user(groupId: ${MAPLE.groupId}, cloginId: ${cloginId}) { metaInfo { updatedAt } } }`,
    )
  ).data!.user.metaInfo.updatedAt;

it("a child's update names its parent in the event, and a subscriber of the parent receives it; another user's does not", async () => {
  const parentBefore = await updatedAt(MAPLE.miles);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: CHILD,
    doc: { first_name: "Junior" },
  }).expect(200);
  // The parent's updatedAt moved with the child's change (users updatedSince reports the parent).
  expect(new Date(await updatedAt(MAPLE.miles)).getTime()).toBeGreaterThan(new Date(parentBefore).getTime());

  const [row] = (await t.dataSource.query(
    `SELECT public_id, type, group_id, data, actor, created_at FROM event WHERE type = 'user.updated' ORDER BY id DESC LIMIT 1`,
  )) as { public_id: string; type: string; group_id: number; data: string; actor: string; created_at: string }[];
  expect(JSON.parse(row.data)).toMatchObject({ clogin_id: CHILD, parent_clogin_id: MAPLE.miles });

  const received = new Map<string, LiveEvent[]>();
  const sink = (name: string, cloginId: number | null): LiveEventSink => ({
    filter: { groupId: MAPLE.groupId, cloginId, registrantView: false },
    offer: (event) => received.set(name, [...(received.get(name) ?? []), event]),
  });
  dispatchLiveEvent(
    {
      position: 1,
      publicId: row.public_id,
      type: row.type,
      groupId: Number(row.group_id),
      data: row.data,
      actor: row.actor,
      createdAt: new Date(row.created_at),
    },
    [sink("parent", MAPLE.miles), sink("child", CHILD), sink("other", MAPLE.bill), sink("project", null)],
  );
  expect([...received.keys()].sort()).toEqual(["child", "parent", "project"]);
  expect(received.get("parent")![0]).toMatchObject({ type: "user.updated", cloginId: CHILD });
});

it("a parent's own change names no parent", async () => {
  await postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: { first_name: "Miles Senior" },
  }).expect(200);
  const [row] = (await t.dataSource.query(
    `SELECT data FROM event WHERE type = 'user.updated' ORDER BY id DESC LIMIT 1`,
  )) as { data: string }[];
  expect(JSON.parse(row.data)).toEqual({ clogin_id: MAPLE.miles, field_ids: expect.any(Array) });
});
