import { startDeliveryWorker, type DeliveryWorker } from "../../src/delivery/delivery-worker";
import { CURSOR_EXPIRED_MESSAGE } from "../../src/domain/events/event-feed";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { startReceiver } from "./support/receiver";
import { addEndpoint, FAST_DELIVERY, silentLogger, until } from "./support/worker-setup";

// The pull event feed through HTTP (REST events `list`, GraphQL `events`), on the events real
// writes record, with the delivery worker placing them in the feed (docs/event-feed.md).

let t: TestApp;
let worker: DeliveryWorker | null = null;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await worker?.stop();
  worker = null;
  await t.close();
});
const startWorker = (config = FAST_DELIVERY) => {
  worker = startDeliveryWorker({ state: t.state, logger: silentLogger, config, pruneIntervalMs: 20 });
  return worker;
};
const listRest = (doc: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "events", { action: "list", doc, ...extra });
const EVENTS_QUERY = `query($after: String, $first: Int, $types: [EventType!], $groupId: Int) {
  events(after: $after, first: $first, types: $types, groupId: $groupId) {
    edges { cursor node { eventId type createdAt groupId actor data } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const listGraphql = (variables: Record<string, unknown>) => graphql(t.app, EVENTS_QUERY, variables);
const storedEventCount = async () =>
  Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE feed_position IS NOT NULL`))[0].n);
const allEventCount = async () => Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM event`))[0].n);

// What makeChanges records, in commit order (the update submits Bill's form, which completes it and fires its email trigger).
const RECORDED = [
  "user.status_changed",
  "email.recorded",
  "user.updated",
  "form.submitted",
  "form.completed",
  "email.queued",
];
/** GraphQL's EventType value of a wire type: user.status_changed is USER_STATUS_CHANGED. */
const enumValueOf = (type: string) => type.toUpperCase().replace(".", "_");

/** Three writes by REST and GraphQL: a status change, an email (naming an admin), a value update. */
async function makeChanges() {
  const status = await postRest(t.app, "statuses", {
    action: "create",
    group_id: MAPLE.groupId,
    doc: { status_name: "Feed test", color: "#112233" },
  });
  expect(status.status).toBe(200);
  const set = await postRest(t.app, "users", {
    action: "set_status",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    status_id: status.body.status_id,
  });
  expect(set.status).toBe(200);
  const email = await postRest(t.app, "users", {
    action: "add_email",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: {
      email_list: [{ from: "office@maple.test", to: "miles@maple.test", subject: "Hello", body: "Hi", admin_id: 501 }],
    },
  });
  expect(email.status).toBe(200);
  const update = await graphql(
    t.app,
    `mutation { updateUser(input: { groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.bill}, values: { first_name: "Billy" } }) { user { cloginId } } }`,
  );
  expect(update.errors).toBeUndefined();
}

describe("event feed", () => {
  it("REST and GraphQL read the same events, in order, with the ids and bodies webhooks deliver, and the actor", async () => {
    const receiver = await startReceiver();
    try {
      await addEndpoint(
        // Every type: the receiver gets what the feed shows.
        t,
        receiver.url(),
        RECORDED,
      );
      await makeChanges();
      const recorded = await allEventCount();
      expect(recorded).toBe(RECORDED.length);
      startWorker();
      await until(async () => (await storedEventCount()) === recorded, 10_000, "events placed in the feed");
      await receiver.waitFor(RECORDED.length);

      const rest = await listRest({});
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ success: true, msg: "Events.", has_more: false });
      const events = rest.body.events as Record<string, unknown>[];
      expect(events.map((event) => event.type)).toEqual(RECORDED);
      // Same id and body as the webhook delivery (the receiver parses what it was sent).
      const delivered = receiver.received.map((delivery) => JSON.parse(delivery.body) as Record<string, unknown>);
      for (const event of events) expect(delivered.find((body) => body.id === event.id)).toEqual(event);
      expect(events[0].actor).toEqual({ type: "api_account", api_account_id: Number(MAPLE.apiId) });
      expect(events[1].actor).toEqual({ type: "api_account", api_account_id: Number(MAPLE.apiId), admin_id: 501 });
      expect(events[2].data).toMatchObject({ clogin_id: MAPLE.bill });

      const gql = await listGraphql({});
      expect(gql.errors).toBeUndefined();
      const connection = (gql.data as { events: { edges: { cursor: string; node: Record<string, unknown> }[] } })
        .events;
      expect(connection.edges.map((edge) => edge.node.eventId)).toEqual(events.map((event) => event.id));
      expect(connection.edges.map((edge) => edge.node.type)).toEqual(RECORDED.map(enumValueOf));
      expect(connection.edges.map((edge) => edge.node.actor)).toEqual(events.map((event) => event.actor));
      expect(connection.edges.map((edge) => edge.node.data)).toEqual(events.map((event) => event.data));
      // The last edge's cursor is REST's end_cursor: both transports continue from the same place.
      expect(connection.edges.at(-1)!.cursor).toBe(rest.body.end_cursor);
    } finally {
      await receiver.close();
    }
  });

  it("pages with a cursor (keyset): limit/first, has_more/hasNextPage, an empty page keeps the cursor; types and group_id filter", async () => {
    await makeChanges();
    startWorker();
    await until(async () => (await storedEventCount()) === RECORDED.length, 10_000, "events placed in the feed");

    const first = await listRest({ limit: 4 });
    expect(first.body.events).toHaveLength(4);
    expect(first.body.has_more).toBe(true);
    const second = await listRest({ limit: 4, after: first.body.end_cursor });
    expect(second.body.events.map((event: { type: string }) => event.type)).toEqual(RECORDED.slice(4));
    expect(second.body.has_more).toBe(false);
    const empty = await listRest({ after: second.body.end_cursor });
    expect(empty.body.events).toEqual([]);
    expect(empty.body.end_cursor).toBe(second.body.end_cursor);

    const gqlFirst = await listGraphql({ first: 4 });
    const page = (gqlFirst.data as { events: { pageInfo: { hasNextPage: boolean; endCursor: string } } }).events;
    expect(page.pageInfo).toEqual({ hasNextPage: true, endCursor: first.body.end_cursor });

    const typed = await listRest({ types: ["email.recorded"] });
    expect(typed.body.events.map((event: { type: string }) => event.type)).toEqual(["email.recorded"]);
    const gqlTyped = await listGraphql({ types: ["EMAIL_RECORDED"] });
    const typedEdges = (gqlTyped.data as { events: { edges: { node: { type: string; data: unknown } }[] } }).events
      .edges;
    expect(typedEdges.map((edge) => [edge.node.type, edge.node.data])).toEqual([
      ["EMAIL_RECORDED", typed.body.events[0].data],
    ]);

    expect((await listRest({}, { group_id: MAPLE.jazzGroupId })).body.events).toEqual([]);
    expect((await listRest({}, { group_id: MAPLE.groupId })).body.events).toHaveLength(RECORDED.length);
  });

  it("another organization sees none of them; its project through group_id is FORBIDDEN on both transports", async () => {
    await makeChanges();
    startWorker();
    await until(async () => (await storedEventCount()) === RECORDED.length, 10_000, "events placed in the feed");
    const otherHeaders = { "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken };
    const other = await postRest(t.app, "events", { action: "list" }, otherHeaders);
    expect(other.status).toBe(200);
    expect(other.body.events).toEqual([]);
    const foreign = await listRest({}, { group_id: OTHER.groupId });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error_code).toBe("FORBIDDEN");
    const gql = await listGraphql({ groupId: OTHER.groupId });
    expect(gql.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(gql.errors?.[0].message).toBe(foreign.body.msg);
  });

  it("a registrant session's change carries the registrant as its actor", async () => {
    const login = await postRest(t.app, "users", { action: "login", group_id: MAPLE.groupId, clogin_id: MAPLE.miles });
    expect(login.status).toBe(200);
    const redeemed = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token }, {});
    expect(redeemed.status).toBe(200);
    const update = await graphql(
      t.app,
      `
        mutation {
          updateMe(input: { values: { first_name: "Miles D." } }) {
            user {
              cloginId
            }
          }
        }
      `,
      {},
      { Authorization: `Bearer ${redeemed.body.session_token}` },
    );
    expect(update.errors).toBeUndefined();
    startWorker();
    await until(async () => (await storedEventCount()) === (await allEventCount()), 10_000, "events in the feed");
    const feed = await listRest({ types: ["user.updated"] });
    expect(feed.body.events).toHaveLength(1);
    expect(feed.body.events[0].actor).toEqual({ type: "registrant", group_id: MAPLE.groupId, clogin_id: MAPLE.miles });
  });

  it("a key limited to a project reads that project's events only; a key without read is FORBIDDEN naming the scope", async () => {
    await makeChanges();
    startWorker();
    await until(async () => (await storedEventCount()) === RECORDED.length, 10_000, "events placed in the feed");
    const keyOf = async (user: string, ...limits: string[]) => {
      const run = await regapi(["api-key", "create", "--org", "1", "--user", user, ...limits], t.state);
      expect(run).toMatchObject({ code: 0 });
      const fields = outputFields(run.stdout);
      return { "Api-Id": fields["Api-Id"], "Api-User": fields["Api-User"], "Api-Token": fields["Api-Token"] };
    };
    const jazz = await keyOf("jazz-feed@maple.test", "--groups", String(MAPLE.jazzGroupId), "--scope", "read");
    const jazzFeed = await postRest(t.app, "events", { action: "list" }, jazz);
    expect([jazzFeed.status, jazzFeed.body.events]).toEqual([200, []]);
    const refused = await postRest(t.app, "events", { action: "list", group_id: MAPLE.groupId }, jazz);
    expect([refused.status, refused.body.error_code]).toEqual([403, "FORBIDDEN"]);
    const camp = await keyOf("camp-feed@maple.test", "--groups", String(MAPLE.groupId), "--scope", "read");
    const campFeed = await postRest(t.app, "events", { action: "list" }, camp);
    expect(campFeed.body.events).toHaveLength(RECORDED.length);
    const writer = await keyOf("writer-feed@maple.test", "--scope", "users.update");
    const noRead = await postRest(t.app, "events", { action: "list" }, writer);
    expect([noRead.status, noRead.body.error_code]).toEqual([403, "FORBIDDEN"]);
    expect(noRead.body.msg).toMatch(/"read"/);
  });

  it("bad members: the same message on REST (doc.…) and GraphQL, naming the member", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string, string][] = [
      [{ after: "nope" }, { after: "nope" }, "doc.after", "after"],
      [{ limit: 0 }, { first: 0 }, "doc.limit", "first"],
      [{ limit: 501 }, { first: 501 }, "doc.limit", "first"],
    ];
    for (const [doc, variables, restPath, graphqlPath] of cases) {
      const rest = await listRest(doc);
      expect(rest.status).toBe(400);
      expect(rest.body.error_code).toBe("VALIDATION_FAILED");
      expect(rest.body.errors[0].path).toBe(restPath);
      const gql = await listGraphql(variables);
      expect(gql.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
      expect(gql.errors?.[0].message).toBe(rest.body.msg.replace(restPath, graphqlPath));
    }
    // An unknown type: REST names the known ones; GraphQL's EventType refuses it before the call.
    const rest = await listRest({ types: ["user.deleted"] });
    expect([rest.status, rest.body.errors[0].path]).toEqual([400, "doc.types"]);
    expect(rest.body.msg).toMatch(/user\.deleted.*known: user\.created/);
    const gql = await listGraphql({ types: ["USER_DELETED"] });
    expect(gql.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(gql.errors?.[0].message).toMatch(/"USER_DELETED".*EventType/);
  });

  it("retention: the worker prunes fanned-out events older than EVENT_RETENTION_DAYS (with their deliveries); an older cursor is 410 CURSOR_EXPIRED on REST, CURSOR_EXPIRED on GraphQL, same message", async () => {
    await makeChanges();
    startWorker();
    await until(async () => (await storedEventCount()) === RECORDED.length, 10_000, "events placed in the feed");
    const before = await listRest({ limit: 1 });
    const oldCursor = before.body.end_cursor as string;
    await worker!.stop();
    worker = null;
    // All but the newest event are made 40 days old.
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const rows: { id: number }[] = await t.dataSource.query(`SELECT id FROM event ORDER BY feed_position`);
    for (const row of rows.slice(0, -1))
      await t.dataSource.query(`UPDATE event SET created_at = ? WHERE id = ?`, [
        t.dataSource.options.type === "better-sqlite3" ? old.toISOString().replace("T", " ").replace("Z", "") : old,
        row.id,
      ]);
    startWorker({ ...FAST_DELIVERY, eventRetentionDays: 30 });
    await until(async () => (await allEventCount()) === 1, 10_000, "old events pruned");
    expect(worker!.stats.pruned).toBe(RECORDED.length - 1);

    const rest = await listRest({ after: oldCursor });
    expect(rest.status).toBe(410);
    expect(rest.body).toMatchObject({ success: false, error_code: "CURSOR_EXPIRED", msg: CURSOR_EXPIRED_MESSAGE });
    const gql = await listGraphql({ after: oldCursor });
    expect(gql.errors?.[0].extensions?.code).toBe("CURSOR_EXPIRED");
    expect(gql.errors?.[0].message).toBe(CURSOR_EXPIRED_MESSAGE);
    // Without a cursor the feed starts at the oldest event kept.
    const fresh = await listRest({});
    expect(fresh.body.events.map((event: { type: string }) => event.type)).toEqual(RECORDED.slice(-1));
  });
});
