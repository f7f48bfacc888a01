import { startTestApp, type TestApp } from "../support/test-app";
import { LAB, labFixtureWithUsers } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { graphql } from "../support/graphql";

// Contract §16: events are recorded by the domain in the transaction of the change, whichever
// transport made it; a rolled-back call records nothing; an update that changes nothing records
// no user.updated.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: labFixtureWithUsers(720000, 10, "ev") });
});
afterAll(() => t.close());

const user = (i: number) => 720000 + i;

interface EventRow {
  id: number;
  type: string;
  group_id: number;
  organization_id: number;
  data: Record<string, unknown>;
  public_id: string;
}

async function eventsSince(lastId: number): Promise<EventRow[]> {
  const rows: Record<string, unknown>[] = await t.dataSource.query(
    `SELECT id, public_id, type, group_id, organization_id, data FROM event WHERE id > ? ORDER BY id`,
    [lastId],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    public_id: String(row.public_id),
    type: String(row.type),
    group_id: Number(row.group_id),
    organization_id: Number(row.organization_id),
    data: JSON.parse(String(row.data)) as Record<string, unknown>,
  }));
}
async function lastEventId(): Promise<number> {
  const [row] = await t.dataSource.query(`SELECT MAX(id) AS id FROM event`);
  return Number(row.id ?? 0);
}
/** The events a call records. */
async function eventsOf(call: () => Promise<unknown>): Promise<EventRow[]> {
  const before = await lastEventId();
  await call();
  return eventsSince(before);
}
const update = (cloginId: number, doc: unknown, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", { action: "update", group_id: LAB.groupId, clogin_id: cloginId, doc, ...extra });

describe("event recording (contract §16)", () => {
  it("create records user.created with the project, its organization and the new clogin_id", async () => {
    const events = await eventsOf(async () => {
      const res = await postRest(t.app, "users", {
        action: "create",
        group_id: LAB.groupId,
        doc: { main_email: "new-ev@lab.test", username: "new-ev@lab.test", password: "secret-123" },
      });
      expect(res.status).toBe(200);
    });
    expect(events[0]).toMatchObject({ type: "user.created", group_id: LAB.groupId, organization_id: 1 });
    expect(typeof events[0].data.clogin_id).toBe("number");
    expect(events[0].public_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("an update that changes a value records user.updated (naming the field), form.submitted and form.completed; the trigger email records email.queued", async () => {
    const events = await eventsOf(() => update(user(0), { first_name: "Changed" }));
    const types = events.map((event) => event.type);
    expect(types).toContain("user.updated");
    expect(types).toContain("form.submitted");
    expect(types).toContain("form.completed");
    expect(types).toContain("email.queued");
    const updated = events.find((event) => event.type === "user.updated")!;
    expect(updated.data).toMatchObject({ clogin_id: user(0) });
    expect(events.find((event) => event.type === "form.completed")!.data).toEqual({ clogin_id: user(0), form_id: 501 });
    const queued = events.find((event) => event.type === "email.queued")!;
    expect(queued.data).toMatchObject({ clogin_id: user(0), to: "ev0@lab.test", subject: "Profile received" });
    const [outbox] = await t.dataSource.query(`SELECT message_id, state FROM outbox_email WHERE message_id = ?`, [
      queued.data.message_id,
    ]);
    expect(outbox).toMatchObject({ state: "queued" });
  });

  it("the same update again changes nothing and records no user.updated (nor anything else)", async () => {
    await update(user(1), { first_name: "Same" });
    const events = await eventsOf(() => update(user(1), { first_name: "Same" }));
    expect(events).toEqual([]);
  });

  it("a person field alone (main_email) that changes records user.updated; sent again it does not", async () => {
    expect((await eventsOf(() => update(user(2), { main_email: "moved@lab.test" }))).map((e) => e.type)).toContain(
      "user.updated",
    );
    expect(await eventsOf(() => update(user(2), { main_email: "moved@lab.test" }))).toEqual([]);
  });

  it("a change of case alone is a change: stored, and recorded as user.updated", async () => {
    await update(user(8), { org_name: "acme" });
    const events = await eventsOf(() => update(user(8), { org_name: "ACME" }));
    expect(events.map((event) => event.type)).toEqual(["user.updated"]);
    const [person] = await t.dataSource.query(`SELECT org_name FROM person WHERE id = ?`, [user(8)]);
    expect(person.org_name).toBe("ACME");
  });

  it("a call that fails after writing rolls back its events too", async () => {
    // connected_to is checked after the person fields were written: the whole call rolls back.
    const events = await eventsOf(async () => {
      const res = await update(user(3), { first_name: "Rolled" }, { connected_to: 999999 });
      expect(res.status).toBe(400);
    });
    expect(events).toEqual([]);
  });

  it("GraphQL records the same events as REST for the same change", async () => {
    const rest = await eventsOf(() => update(user(4), { first_name: "Both" }));
    const viaGraphql = await eventsOf(async () => {
      const res = await graphql(
        t.app,
        `
          mutation ($input: UpdateUserInput!) {
            updateUser(input: $input) {
              user {
                cloginId
              }
            }
          }
        `,
        { input: { groupId: LAB.groupId, cloginId: user(5), values: { first_name: "Both" } } },
      );
      expect(res.errors).toBeUndefined();
    });
    const shape = (events: EventRow[]) =>
      events.map((event) => [event.type, { ...event.data, clogin_id: 0, message_id: 0, to: 0 }]);
    expect(shape(viaGraphql)).toEqual(shape(rest));
  });

  it("set_status records user.status_changed; setting the same status again records nothing", async () => {
    const created = await graphql<{ createStatus: { status: { statusId: number } } }>(
      t.app,
      `mutation { createStatus(input: { groupId: ${LAB.groupId}, name: "Events status", color: "#112233" }) { status { statusId } } }`,
    );
    const statusId = created.data!.createStatus.status.statusId;
    const setStatus = () =>
      postRest(t.app, "users", {
        action: "set_status",
        group_id: LAB.groupId,
        clogin_id: user(6),
        status_id: statusId,
      });
    const events = await eventsOf(setStatus);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["user.status_changed", { clogin_id: user(6), status_id: statusId }],
    ]);
    expect(await eventsOf(setStatus)).toEqual([]);
  });

  it("add_product records cart.product_added; add_email records email.recorded", async () => {
    const added = await eventsOf(() =>
      postRest(t.app, "users", {
        action: "add_product",
        group_id: LAB.groupId,
        clogin_id: user(7),
        product_list: { p_id: LAB.products.extra, q: 2 },
      }),
    );
    expect(added.map((event) => event.type)).toEqual(["cart.product_added"]);
    expect(added[0].data).toMatchObject({ clogin_id: user(7), products: [{ p_id: LAB.products.extra, q: 2 }] });
    const recorded = await eventsOf(() =>
      postRest(t.app, "users", {
        action: "add_email",
        group_id: LAB.groupId,
        clogin_id: user(7),
        doc: { email_list: [{ from: "office@lab.test", to: "ev7@lab.test", subject: "Hello", body: "Hi" }] },
      }),
    );
    expect(recorded.map((event) => [event.type, event.data])).toEqual([
      ["email.recorded", { clogin_id: user(7), to: "ev7@lab.test", subject: "Hello" }],
    ]);
  });
});

describe("what recording costs", () => {
  it("an update costs the same number of statements with no endpoint and with five: fan-out happens in the worker", async () => {
    const { createWebhookEndpoint } = await import("../../src/domain/webhooks/webhooks.service");
    const { DEFAULT_DOMAIN_SETTINGS, createRequestContext } = await import("../../src/domain/context");
    const { MAPLE_PRINCIPAL } = await import("../support/domain-database");
    const statementsOf = async (name: string) =>
      (await t.countStatements(() => update(user(9), { first_name: name }))).statements;
    await statementsOf("Cost warm-up"); // the first submission also runs the form's triggers
    const without = await statementsOf("Cost one");
    const ctx = createRequestContext(t.state, "test", MAPLE_PRINCIPAL, {
      settings: { ...DEFAULT_DOMAIN_SETTINGS, webhookAllowPrivate: true },
    });
    for (let i = 0; i < 5; i += 1)
      await createWebhookEndpoint(ctx, { url: `http://127.0.0.1:9/${i}`, events: ["user.updated", "form.submitted"] });
    expect(await statementsOf("Cost two")).toBe(without);
  });
});
