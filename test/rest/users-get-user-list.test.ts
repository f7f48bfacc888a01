import { OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { fixtureWith } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { STATEMENT_COUNTING } from "../support/test-config";

// users get_user_list (contract §12, §18): filters, families, pages of 50 parents with their
// children riding along, positions, totals over all matching records, fixed statements per page.

const FAMILY = 100909200;
const STATUS = { accepted: 9201, withdrawn: 9202 };
const PARENTS = 120; // three pages: 50, 50, 20
const firstParent = 7300001;
const parentId = (n: number) => firstParent + n;
const childId = (n: number) => 7400001 + n;

// Parent n (0-based): every 10th is withdrawn (excluding). Parents 0..4 have children: parent 0
// two children (one withdrawn), parents 1..4 one child each. Parent 10 (withdrawn) has a child.
function familyProject() {
  const parents = Array.from({ length: PARENTS }, (_, n) => ({
    cloginId: parentId(n),
    username: `parent${n}@list.test`,
    firstName: `Parent${n}`,
    applicationDate: "2026-06-01 08:00:00",
    statusId: n % 10 === 0 && n > 0 ? STATUS.withdrawn : STATUS.accepted,
    cart: n < 3 ? [{ productId: 9301, quantity: 2 }] : [],
    payments: n < 2 ? [{ amount: "5.00" }] : [],
  }));
  const children = [
    { n: 0, parent: 0, status: STATUS.accepted },
    { n: 1, parent: 0, status: STATUS.withdrawn },
    { n: 2, parent: 1, status: null },
    { n: 3, parent: 2, status: STATUS.accepted },
    { n: 4, parent: 3, status: STATUS.accepted },
    { n: 5, parent: 4, status: STATUS.accepted },
    { n: 6, parent: 10, status: STATUS.accepted },
  ].map((child) => ({
    cloginId: childId(child.n),
    username: `child${child.n}@list.test`,
    firstName: `Child${child.n}`,
    connectedTo: parentId(child.parent),
    applicationDate: "2026-06-02 08:00:00",
    statusId: child.status,
    cart: child.n === 0 ? [{ productId: 9301, quantity: 1 }] : [],
  }));
  return {
    id: FAMILY,
    name: "List family",
    familySystem: true,
    statuses: [
      { id: STATUS.accepted, name: "Accepted", color: "#00AA00", isExcluded: 0 },
      { id: STATUS.withdrawn, name: "Withdrawn", color: "#AA0000", isExcluded: 1 },
    ],
    products: [{ id: 9301, name: "Fee", price: "10.00" }],
    forms: [{ id: 9401, name: "Everyone", fields: [{ id: "f_9401_1", label: "Note", type: "text" }] }],
    users: [...parents, ...children],
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: fixtureWith([familyProject()]), config: STATEMENT_COUNTING });
});
afterAll(() => t.close());

const list = (doc: unknown = {}, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", { action: "get_user_list", group_id: FAMILY, doc, ...extra });

type Rec = {
  user_info: { clogin_id: string; connected_to: string };
  meta_info: Record<string, string | null>;
  children?: Rec[];
};
const ids = (records: Rec[]) => records.map((r) => Number(r.user_info.clogin_id));

const activeParents = Array.from({ length: PARENTS }, (_, n) => n).filter((n) => !(n % 10 === 0 && n > 0));

describe("get_user_list: the first page and the answer's shape", () => {
  it("50 parents in uid order, their non-excluded children riding along, totals over every matching record", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      msg: "User list.",
      total_users: activeParents.length,
      records_per_page: 50,
      starting_position: 0,
      next_starting_position: 50,
    });
    expect(ids(res.body.users)).toEqual(activeParents.slice(0, 50).map(parentId));
    // child 1 is withdrawn; child 6's parent (10) is withdrawn: neither rides along.
    expect(ids(res.body.children)).toEqual([0, 2, 3, 4, 5].map(childId));
    expect(res.body.children[0].user_info.connected_to).toBe(String(parentId(0)));
    expect(res.body.users[0].meta_info).toMatchObject({ clogin_id: String(parentId(0)), total_order: "20.00" });
    // 109 parents + 5 children; orders: 3 parents × 20.00 + child 0 10.00; paid 2 × 5.00.
    expect(res.body.totals).toEqual({
      total_users: "114",
      total_active_users: "114",
      total_order: "70.00",
      total_paid: "10.00",
      total_balance: "60.00",
    });
  });

  it("walks page after page to the end, following next_starting_position", async () => {
    const seen: number[] = [];
    let position: number | null = 0;
    const positions: number[] = [];
    while (position !== null) {
      positions.push(position);
      const res = await list({ starting_position: position });
      expect(res.status).toBe(200);
      seen.push(...ids(res.body.users));
      position = res.body.next_starting_position;
    }
    expect(positions).toEqual([0, 50, 100]);
    expect(seen).toEqual(activeParents.map(parentId));
  });

  it("a jump to a position never handed out gives the same page as the walk", async () => {
    const jumped = await list({ starting_position: 37 });
    expect(ids(jumped.body.users)).toEqual(activeParents.slice(37, 87).map(parentId));
    expect(jumped.body.next_starting_position).toBe(87);
    expect(jumped.body.starting_position).toBe(37);
    const next = await list({ starting_position: "87" });
    expect(ids(next.body.users)).toEqual(activeParents.slice(87).map(parentId));
    expect(next.body.next_starting_position).toBeNull();
  });

  it("a position past the end: no users, no children, next_starting_position null", async () => {
    const res = await list({ starting_position: 5000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ users: [], children: [], next_starting_position: null, starting_position: 5000 });
  });
});

describe("get_user_list: filters", () => {
  it("with_excluded keeps excluded users and their matching children", async () => {
    const res = await list({ with_excluded: true, starting_position: 0 });
    expect(res.body.total_users).toBe(PARENTS);
    expect(ids(res.body.users)).toEqual(Array.from({ length: 50 }, (_, n) => parentId(n)));
    expect(ids(res.body.children)).toEqual([0, 1, 2, 3, 4, 5, 6].map(childId));
    expect(res.body.totals.total_users).toBe(String(PARENTS + 7));
    // child 6 is not excluded itself, though its parent is.
    expect(res.body.totals.total_active_users).toBe(String(activeParents.length + 6));
  });

  it("only_excluded keeps only excluded users (children must be excluded themselves)", async () => {
    const res = await list({ only_excluded: "1" });
    expect(ids(res.body.users)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110].map(parentId));
    expect(res.body.children).toEqual([]);
    expect(res.body.total_users).toBe(11);
    expect(res.body.next_starting_position).toBeNull();
    expect(res.body.totals).toMatchObject({ total_users: "11", total_active_users: "0" });
  });

  it("only_parents drops children; totals count parents only", async () => {
    const res = await list({ only_parents: 1 });
    expect(res.body.children).toEqual([]);
    expect(res.body.users).toHaveLength(50);
    expect(res.body.totals.total_users).toBe(String(activeParents.length));
  });

  it("only_children pages over children alone, with users empty", async () => {
    const res = await list({ only_children: "true", with_excluded: true });
    expect(res.body.users).toEqual([]);
    expect(ids(res.body.children)).toEqual([0, 1, 2, 3, 4, 5, 6].map(childId));
    expect(res.body.total_users).toBe(7);
    const active = await list({ only_children: true });
    expect(ids(active.body.children)).toEqual([0, 2, 3, 4, 5, 6].map(childId));
  });

  it("return_families nests children in their parent; every parent has children; top-level children is []", async () => {
    const res = await list({ return_families: true });
    expect(res.body.children).toEqual([]);
    for (const parent of res.body.users as Rec[]) expect(Array.isArray(parent.children)).toBe(true);
    const first = (res.body.users as Rec[])[0];
    expect(ids(first.children!)).toEqual([childId(0)]);
    expect(ids((res.body.users as Rec[])[1].children!)).toEqual([childId(2)]);
    expect((res.body.users as Rec[])[5].children).toEqual([]);
  });
});

describe("get_user_list: bad input", () => {
  it.each([
    [{ starting_position: -1 }, "doc.starting_position"],
    [{ starting_position: 1.5 }, "doc.starting_position"],
    [{ starting_position: "ten" }, "doc.starting_position"],
    [{ with_excluded: "yes" }, "doc.with_excluded"],
    [{ return_families: 2 }, "doc.return_families"],
    [{ only_parents: true, only_children: true }, "doc.only_children"],
  ])("%j is 400 naming %s", async (doc, path) => {
    const res = await list(doc);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    expect(res.body.msg).toContain(path);
  });

  it("doc as [] is no options; a foreign project is 403", async () => {
    expect((await list([])).body.total_users).toBe(activeParents.length);
    const foreign = await postRest(t.app, "users", { action: "get_user_list", group_id: OTHER.groupId, doc: {} });
    expect(foreign.status).toBe(403);
  });
});

describe("get_user_list: statements per page do not grow with the page", () => {
  async function statementsOf(doc: Record<string, unknown>): Promise<number> {
    const { statements, result } = await t.countStatements(() => list(doc));
    expect(result.status).toBe(200);
    return statements;
  }

  it("a page of 1 parent and a page of 50 (with children): the same count, first page and continued walk alike", async () => {
    const fifty = await statementsOf({ starting_position: 0 });
    const one = await statementsOf({ starting_position: activeParents.length - 1 });
    expect(one).toBe(fifty);
    const continued = await statementsOf({ starting_position: 50 });
    const continuedLast = await statementsOf({ starting_position: 100 });
    expect(continuedLast).toBe(continued);
    // The counters come with the ownership read, so a continued walk (which reuses the totals
    // of its start) costs what a first page costs.
    expect(continued).toBe(fifty);
  });

  it("a first page costs 2 statements: ownership, counters and the page with its summaries, then the children with theirs; without children 1", async () => {
    await list({ starting_position: 0 }); // the API account is then cached (src/auth/account-cache.ts)
    expect(await statementsOf({ starting_position: 0 })).toBe(2);
    expect(await statementsOf({ starting_position: 0, only_parents: true })).toBe(1);
    expect(await statementsOf({ starting_position: 0, only_children: true })).toBe(1);
    expect(await statementsOf({ starting_position: 50 })).toBe(2);
  });

  it("a foreign project costs 1 statement and reads nothing of it", async () => {
    await list({ starting_position: 0 });
    const { statements, result } = await t.countStatements(() =>
      postRest(t.app, "users", { action: "get_user_list", group_id: OTHER.groupId, doc: {} }),
    );
    expect(result.status).toBe(403);
    expect(statements).toBe(1);
  });

  it("with every get_info selector per record: the same count for a page of 1 parent and of 50", async () => {
    const selectors = {
      _allfields: true,
      _userforms: true,
      _family: true,
      _userproducts: true,
      _usercart: true,
      _userpayments: true,
      _utm: true,
      f_9401_1: true,
    };
    const fifty = await statementsOf({ ...selectors, starting_position: 0 });
    const one = await statementsOf({ ...selectors, starting_position: activeParents.length - 1 });
    expect(one).toBe(fifty);
    const plain = await statementsOf({ starting_position: 0 });
    expect(fifty).toBeGreaterThan(plain);
  });
});
