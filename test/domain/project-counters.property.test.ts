import fc from "fast-check";
import { countUsers as countMatchingUsers, type UserListFilter } from "../../src/data/user-page.data";
import { readProjectCounters } from "../../src/data/project-counters.data";
import { readListTotals, type ExclusionFilter } from "../../src/data/user-list.data";
import {
  emptyCounters,
  listTotalsOf,
  matchingUsersOf,
  projectTotalsOf,
  recountProjectCounters,
} from "../../src/domain/projects/project-counters";
import { fixtureWith } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { itOnMysqlFamily } from "../support/database";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 12: the per-project counters equal a full recount after every write, whatever the order
// of writes: random sequences of create, create_child, set_status (between no status, an active
// one and two excluding ones, on parents with children too), add_product (a discount included)
// and a form submission whose trigger adds a product. After each step the counters also answer
// every get_user_list totals combination and users-connection count as counting does.

const GROUP = 100909090;
const STATUSES = [0, 191, 192, 193];
const PRODUCTS = { kit: 195, discount: 196, extra: 197 };

const COUNTERS_PROJECT = {
  id: GROUP,
  name: "Counters",
  familySystem: true,
  statuses: [
    { id: 191, name: "In", color: "#00AA00", isExcluded: 0 },
    { id: 192, name: "Out", color: "#AA0000", isExcluded: 1 },
    { id: 193, name: "Gone", color: "#000000", isExcluded: 1 },
  ],
  products: [
    { id: PRODUCTS.kit, name: "Kit", price: "12.50" },
    { id: PRODUCTS.discount, name: "Sibling discount", price: "3.00", baseType: 2 },
    { id: PRODUCTS.extra, name: "Extra", price: "5.00" },
  ],
  forms: [{ id: 951, name: "Note", fields: [{ id: "f_951_1", label: "Note", type: "text" }] }],
  triggers: [{ formId: 951, action: "add_product", productId: PRODUCTS.extra, quantity: 1 }],
  users: [
    { cloginId: 790001, username: "c1@counters.test", firstName: "C1", statusId: 192 },
    { cloginId: 790002, username: "c2@counters.test", firstName: "C2", connectedTo: 790001 },
    { cloginId: 790003, username: "c3@counters.test", firstName: "C3", statusId: 191 },
  ],
};

let t: TestApp;
const parents = [790001, 790003];
const everyone = [790001, 790002, 790003];
let created = 0;

beforeAll(async () => {
  t = await startTestApp({ fixture: fixtureWith([COUNTERS_PROJECT]) });
});
afterAll(() => t.close());

type Step =
  | { kind: "create" }
  | { kind: "create_child"; parent: number }
  | { kind: "set_status"; user: number; status: number }
  | { kind: "add_product"; user: number; product: keyof typeof PRODUCTS; quantity: number }
  | { kind: "submit_note"; user: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: "create" as const }),
  fc.record({ kind: fc.constant("create_child" as const), parent: fc.nat() }),
  fc.record({ kind: fc.constant("set_status" as const), user: fc.nat(), status: fc.constantFrom(...STATUSES) }),
  fc.record({
    kind: fc.constant("add_product" as const),
    user: fc.nat(),
    product: fc.constantFrom("kit" as const, "discount" as const, "extra" as const),
    quantity: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant("submit_note" as const), user: fc.nat() }),
);

const post = (body: Record<string, unknown>) => postRest(t.app, "users", { group_id: GROUP, ...body });

async function run(s: Step): Promise<void> {
  const pick = (list: number[], n: number) => list[n % list.length];
  switch (s.kind) {
    case "create": {
      created += 1;
      const res = await post({ action: "create", doc: { main_email: `new${created}@counters.test`, first_name: "N" } });
      expect(res.status).toBe(200);
      const id = Number(res.body.user_info.clogin_id);
      parents.push(id);
      everyone.push(id);
      return;
    }
    case "create_child": {
      const res = await post({
        action: "create_child",
        connected_to: pick(parents, s.parent),
        doc: { first_name: "K" },
      });
      expect(res.status).toBe(200);
      everyone.push(Number(res.body.user_info.clogin_id));
      return;
    }
    case "set_status": {
      const res = await post({ action: "set_status", clogin_id: pick(everyone, s.user), status_id: s.status, doc: [] });
      expect(res.status).toBe(200);
      return;
    }
    case "add_product": {
      // Category-free products: every add is accepted and writes its lines.
      const res = await post({
        action: "add_product",
        clogin_id: pick(everyone, s.user),
        product_list: [{ p_id: PRODUCTS[s.product], q: s.quantity }],
      });
      expect(res.status).toBe(200);
      return;
    }
    case "submit_note": {
      const res = await post({ action: "update", clogin_id: pick(everyone, s.user), doc: { f_951_1: `n${created}` } });
      expect(res.status).toBe(200);
      return;
    }
  }
}

const EXCLUSIONS: ExclusionFilter[] = ["without_excluded", "with_excluded", "only_excluded"];
const SCOPES = [
  { onlyParents: false, onlyChildren: false },
  { onlyParents: true, onlyChildren: false },
  { onlyParents: false, onlyChildren: true },
];
const FILTERS: UserListFilter[] = [
  {},
  { excluded: true },
  { excluded: false },
  { level: "parent" },
  { level: "child" },
  { level: "child", excluded: true },
  { level: "parent", excluded: false },
];

async function countersOfGroup() {
  return (await readProjectCounters(t.dataSource.manager, { projectId: GROUP })).get(GROUP) ?? emptyCounters();
}

async function expectCountersExact(): Promise<void> {
  const kept = await countersOfGroup();
  await recountProjectCounters(t.context(), GROUP);
  expect(kept).toEqual(await countersOfGroup());

  const em = t.dataSource.manager;
  for (const exclusion of EXCLUSIONS)
    for (const scope of SCOPES) {
      const counted = await readListTotals(em, { groupId: GROUP, exclusion }, scope);
      expect({ exclusion, ...scope, ...listTotalsOf(kept, { exclusion, ...scope }) }).toEqual({
        exclusion,
        ...scope,
        topLevel: counted.top_level,
        totalUsers: counted.total_users,
        totalActiveUsers: counted.total_active_users,
        orderCents: counted.order_cents,
        paidCents: counted.paid_cents,
      });
    }
  for (const filter of FILTERS)
    expect({ filter, count: matchingUsersOf(kept, filter) }).toEqual({
      filter,
      count: (await countMatchingUsers(em, GROUP, filter)).total,
    });
  const all = await readListTotals(em, { groupId: GROUP, exclusion: "with_excluded" }, SCOPES[0]);
  expect(projectTotalsOf(kept)).toEqual({
    users: all.total_users,
    activeUsers: all.total_active_users,
    orderCents: all.order_cents,
    paidCents: all.paid_cents,
  });
}

describe("per-project counters (issue 12)", () => {
  it("the fixture load counts the loaded registrations", async () => {
    await expectCountersExact();
    expect(projectTotalsOf(await countersOfGroup())).toMatchObject({ users: 3, activeUsers: 2 });
  });

  it("equal a full recount after each write of random sequences of writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        for (const s of steps) {
          await run(s);
          await expectCountersExact();
        }
      }),
      { numRuns: 12, seed: 20261123 },
    );
  }, 120_000);

  // Issue 26: the same property with the writes of each batch sent at once. On MariaDB/MySQL they
  // really run side by side (a parent's status change next to its children's carts and new
  // children: the family's lock orders them); on SQLite they take turns. Every answer is 200.
  it("equal a full recount after random batches of concurrent writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 16 }), async (steps) => {
        await Promise.all(steps.map(run));
        await expectCountersExact();
      }),
      { numRuns: 10, seed: 20261125 },
    );
  }, 120_000);

  itOnMysqlFamily("stay exact under concurrent writes to one project (relative updates, no lost update)", async () => {
    const fresh = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post({ action: "create", doc: { main_email: `race${i}@counters.test`, first_name: "R" } }),
      ),
    );
    const ids = fresh.map((res) => Number(res.body.user_info.clogin_id));
    const writes = await Promise.all([
      ...ids.map((id) => post({ action: "add_product", clogin_id: id, product_list: [{ p_id: PRODUCTS.kit, q: 1 }] })),
      ...ids.map((id, i) => post({ action: "set_status", clogin_id: id, status_id: STATUSES[i % 4], doc: [] })),
      ...ids.map((id) => post({ action: "create_child", connected_to: id, doc: { first_name: "RK" } })),
    ]);
    expect(writes.map((res) => res.status)).toEqual(writes.map(() => 200));
    await expectCountersExact();
  });
});
