import { writeSearchDocuments } from "../../src/data/person-search.data";
import type { DataSource } from "typeorm";
import * as insertRowsModule from "../../src/db/insert-rows";
import { verifyPassword } from "../../src/auth/secrets";
import { SEED_PASSWORD, seedRegistrants, type SeedCounts } from "../../src/cli/seed/seed-registrants";
import { createRequestContext } from "../../src/domain/context";
import { parseChoiceOptions } from "../../src/domain/forms/field-value-codec";
import {
  CartLine,
  Field,
  FieldValue,
  Form,
  Payment,
  Person,
  Product,
  Registration,
  RegistrationForm,
  RegistrationTag,
  Status,
  Tag,
} from "../../src/entities";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { MAPLE } from "../fixtures/test-fixture";
import { testFixture } from "../fixtures/test-fixture";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { rowCounts, watchTables } from "../support/tables";
import { MemoryStream, regapi } from "./support/run-in-process";

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await loadFixture(createRequestContext(db.state, "fixture"), testFixture());
});
afterAll(() => db.dispose());
afterEach(() => jest.restoreAllMocks());

const SUMMARY =
  /^seeded (\d+) registrants in [\d.]+ s \(\d+\/s; (\d+) rows, \d+ rows\/s\): (\d+) persons, (\d+) registrations, (\d+) forms \((\d+) completed\), (\d+) field values, (\d+) tags, (\d+) cart lines, (\d+) payments; usernames (\S+)<n>@seed\.test\n$/;

/** The summary line, read back: the seed's own row counts plus the totals and the username prefix. */
interface Summary extends SeedCounts {
  registrants: number;
  rows: number;
  prefix: string;
}

function parseSummary(stdout: string): Summary {
  const match = SUMMARY.exec(stdout);
  if (!match) throw new Error(`not a seed summary line: ${stdout}`);
  const [registrants, rows, persons, registrations, forms, completedForms, values, tags, cartLines, payments] = match
    .slice(1, 11)
    .map(Number);
  return {
    registrants,
    rows,
    persons,
    registrations,
    forms,
    completedForms,
    values,
    tags,
    cartLines,
    payments,
    prefix: match[11],
  };
}

/** Everything seeded under `prefix`, read back with the project's setup. */
async function readSeeded(dataSource: DataSource, prefix: string, groupId: number) {
  const em = dataSource.manager;
  const persons = (await em.find(Person)).filter((p) => p.username?.startsWith(prefix));
  const personIds = new Set(persons.map((p) => p.id));
  const registrations = (await em.find(Registration)).filter((r) => personIds.has(r.personId));
  const uids = new Set(registrations.map((r) => r.uid));
  const mine = <T extends { registrationId: number }>(rows: T[]) => rows.filter((row) => uids.has(row.registrationId));
  return {
    persons,
    registrations,
    forms: mine(await em.find(RegistrationForm)),
    values: mine(await em.find(FieldValue)),
    tags: mine(await em.find(RegistrationTag)),
    cartLines: mine(await em.find(CartLine)),
    payments: mine(await em.find(Payment)),
    projectForms: await em.findBy(Form, { projectId: groupId }),
    projectFields: await em.findBy(Field, { projectId: groupId }),
    statusIds: (await em.findBy(Status, { projectId: groupId })).map((s) => s.id),
    tagIds: (await em.findBy(Tag, { projectId: groupId })).map((t) => t.id),
    products: await em.findBy(Product, { projectId: groupId }),
  };
}

type Seeded = Awaited<ReturnType<typeof readSeeded>>;

/** The invariants every seeded registrant satisfies, whatever the random choices were. */
function expectConsistent(seeded: Seeded, groupId: number) {
  const byUid = new Map(seeded.registrations.map((r) => [r.uid, r]));
  const personIds = new Set(seeded.persons.map((p) => p.id));
  for (const registration of seeded.registrations) {
    expect(registration.projectId).toBe(groupId);
    if (registration.connectedTo !== null) {
      // A child points at a parent registered in the same project, who is not a child.
      const parent = seeded.registrations.find((r) => r.personId === registration.connectedTo);
      expect(parent?.connectedTo).toBeNull();
    }
    if (registration.statusId !== null) expect(seeded.statusIds).toContain(registration.statusId);
  }
  expect(new Set(seeded.registrations.map((r) => r.personId))).toEqual(personIds);

  const formSet = new Map<number, Set<number>>();
  for (const row of seeded.forms) {
    formSet.set(row.registrationId, (formSet.get(row.registrationId) ?? new Set()).add(row.formId));
    expect(row.completedAt === null).toBe(!row.completed);
  }
  for (const registration of seeded.registrations) {
    const level = registration.connectedTo === null ? "parent" : "child";
    const initial = seeded.projectForms
      .filter((f) => f.initial && (f.audienceLevel === "all" || f.audienceLevel === level))
      .map((f) => f.id);
    expect([...(formSet.get(registration.uid) ?? [])].sort()).toEqual(initial.sort());
  }

  const fieldsById = new Map(seeded.projectFields.map((f) => [f.id, f]));
  const valueKeys = new Set(seeded.values.map((v) => `${v.registrationId}/${v.fieldId}`));
  for (const value of seeded.values) {
    const field = fieldsById.get(value.fieldId)!;
    expect(formSet.get(value.registrationId)).toContain(field.formId);
    if (field.fieldType === "single_choice" || field.fieldType === "multiple_choice") {
      const chosen = JSON.parse(value.value) as string[];
      expect(chosen.length).toBeGreaterThan(0);
      for (const option of chosen) expect(parseChoiceOptions(field.choiceOptions)).toContain(option);
    }
  }
  for (const row of seeded.forms.filter((f) => f.completed)) {
    for (const field of seeded.projectFields.filter((f) => f.formId === row.formId)) {
      expect(valueKeys).toContain(`${row.registrationId}/${field.id}`);
    }
  }

  for (const tag of seeded.tags) expect(seeded.tagIds).toContain(tag.tagId);
  const prices = new Map(seeded.products.map((p) => [p.id, p.priceCents]));
  const productsById = new Map(seeded.products.map((p) => [p.id, p]));
  const orderOf = new Map<number, number>();
  for (const line of seeded.cartLines) {
    expect(line.unitPriceCents).toBe(prices.get(line.productId));
    // Only what add_product would let this registrant buy: its level, not private, one unit of an only_one product.
    const product = productsById.get(line.productId)!;
    const level = byUid.get(line.registrationId)!.connectedTo === null ? "parent" : "child";
    expect(["all", level]).toContain(product.level);
    expect(product.isPrivate).toBe(false);
    if (product.onlyOne) expect(line.quantity).toBe(1);
    expect(line.recurringStartDate !== null).toBe(product.baseType === 6);
    orderOf.set(line.registrationId, (orderOf.get(line.registrationId) ?? 0) + line.quantity * line.unitPriceCents);
  }
  for (const payment of seeded.payments) {
    expect(byUid.has(payment.registrationId)).toBe(true);
    expect(payment.amountCents).toBeGreaterThan(0);
    expect(payment.amountCents).toBeLessThanOrEqual(orderOf.get(payment.registrationId) ?? 0);
  }
}

describe("regapi seed", () => {
  it("creates the requested registrants in a family project, consistent with the project, and prints one summary line", async () => {
    const before = await rowCounts(db.dataSource);
    const run = await regapi(
      ["seed", "--group", String(MAPLE.groupId), "--users", "120", "--batch", "50"],
      db.dataSource,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const summary = parseSummary(run.stdout);
    expect(summary).toMatchObject({ registrants: 120, persons: 120, registrations: 120 });

    const after = await rowCounts(db.dataSource);
    const delta = (table: string) => after[table] - before[table];
    expect({
      persons: delta("person"),
      registrations: delta("registration"),
      forms: delta("registration_form"),
      values: delta("field_value"),
      tags: delta("registration_tag"),
      cartLines: delta("cart_line"),
      payments: delta("payment"),
    }).toEqual({
      persons: 120,
      registrations: 120,
      forms: summary.forms,
      values: summary.values,
      tags: summary.tags,
      cartLines: summary.cartLines,
      payments: summary.payments,
    });
    // Every row the summary counts, and no other; the counters are derived totals whose slot rows
    // appear as writes pick slots at random (docs/counters.md), so they are compared to a recount
    // (test/cli/recount.test.ts) rather than counted here.
    const total = (counts: Record<string, number>) =>
      Object.entries(counts).reduce((sum, [table, n]) => (table === "project_counter" ? sum : sum + n), 0);
    expect(total(after) - total(before)).toBe(summary.rows);

    const seeded = await readSeeded(db.dataSource, summary.prefix, MAPLE.groupId);
    expect(seeded.persons).toHaveLength(120);
    expect(seeded.forms.filter((f) => f.completed)).toHaveLength(summary.completedForms);
    expectConsistent(seeded, MAPLE.groupId);
    // Every kind of row is there: 120 registrants make all the random choices come up.
    // In a family project every third registrant of a chunk (50, 50, 20) is the child of the one before.
    expect(seeded.registrations.filter((r) => r.connectedTo !== null)).toHaveLength(16 + 16 + 6);
    expect(summary.completedForms).toBeGreaterThan(0);
    expect(summary.completedForms).toBeLessThan(summary.forms);
    expect(seeded.registrations.some((r) => r.statusId !== null)).toBe(true);
    for (const count of [summary.values, summary.tags, summary.cartLines, summary.payments])
      expect(count).toBeGreaterThan(0);

    // Each registration's search document and sort name, written from the persons in hand, are
    // what reading the persons back writes.
    const uids = seeded.registrations.map((r) => r.uid);
    const searchOf = async () => {
      const key = db.dataSource.options.type === "better-sqlite3" ? "rowid" : "uid";
      const documents = await db.dataSource.query(
        `SELECT ${key} AS uid, search_text FROM registration_search WHERE ${key} IN (${uids.join(", ")}) ORDER BY ${key}`,
      );
      const sortNames = await db.dataSource.query(
        `SELECT uid, sort_name FROM registration WHERE uid IN (${uids.join(", ")}) ORDER BY uid`,
      );
      return JSON.stringify({ documents, sortNames });
    };
    const written = await searchOf();
    // The document holds the username's folded words ("seed-…-00000000@seed.test": seed, the
    // run, the number, test).
    expect(written).toContain(` ${seeded.persons[0].username!.toLowerCase().split(/[^a-z0-9_]+/)[2]} `);
    await writeSearchDocuments(db.dataSource.manager, { uids });
    expect(await searchOf()).toBe(written);

    // One password hash for all (hashed once), and it is the documented seed password.
    const hashes = new Set(seeded.persons.map((p) => p.passwordHash).filter((h) => h !== null));
    expect(hashes.size).toBe(1);
    expect(await verifyPassword(SEED_PASSWORD, [...hashes][0]!)).toBe(true);
  });

  it("gives no status, tag, cart or child in a plain project without them", async () => {
    const run = await regapi(["seed", "--group", String(MAPLE.jazzGroupId), "--users", "12"], db.dataSource);
    expect(run.code).toBe(0);
    const summary = parseSummary(run.stdout);
    expect(summary).toMatchObject({ registrations: 12, forms: 12, tags: 0, cartLines: 0, payments: 0 });
    const seeded = await readSeeded(db.dataSource, summary.prefix, MAPLE.jazzGroupId);
    expect(seeded.registrations.every((r) => r.statusId === null && r.connectedTo === null)).toBe(true);
    expectConsistent(seeded, MAPLE.jazzGroupId);
  });

  it("splits inserts to respect the bind-variable limit and still writes every row", async () => {
    const result = await seedRegistrants(db.state, {
      groupId: MAPLE.groupId,
      users: 30,
      batchSize: 7,
      maxBindVariables: 40,
    });
    expect(result).toMatchObject({ persons: 30, registrations: 30, chunks: 5 });
    const seeded = await readSeeded(db.dataSource, result.usernamePrefix, MAPLE.groupId);
    expect([seeded.persons.length, seeded.forms.length, seeded.values.length, seeded.tags.length]).toEqual([
      30,
      result.forms,
      result.values,
      result.tags,
    ]);
    expectConsistent(seeded, MAPLE.groupId);
  });

  it("draws a progress bar on a terminal", async () => {
    const terminal = new MemoryStream(true);
    const run = await regapi(
      ["seed", "--group", String(MAPLE.groupId), "--users", "30", "--batch", "10"],
      db.dataSource,
      { stderr: terminal },
    );
    expect(run.code).toBe(0);
    expect(terminal.text).toContain("seeding [");
    expect(terminal.text).toContain("30/30 registrants");
    expect(parseSummary(run.stdout).registrants).toBe(30);
  });

  it.each([
    [["--group", "999", "--users", "5"], "regapi: project (group_id) 999 does not exist\n"],
    [["--group", String(MAPLE.groupId), "--users", "0"], /option '--users <n>' argument '0' is invalid/],
    [
      ["--group", String(MAPLE.groupId), "--users", "5", "--batch", "20000"],
      /option '--batch <n>' argument '20000' is invalid. expected an integer from 1 to 10000/,
    ],
  ])("refuses %j without writing", async (args, message) => {
    const tables = await watchTables(db.dataSource);
    const run = await regapi(["seed", ...args], db.dataSource);
    expect(run.code).toBe(1);
    if (typeof message === "string") expect(run.stderr).toBe(message);
    else expect(run.stderr).toMatch(message);
    await tables.expectNothingWritten();
  });

  it("leaves whole chunks only when a chunk fails half-way", async () => {
    const insert = insertRowsModule.insertPlainRows;
    let valueInserts = 0;
    jest.spyOn(insertRowsModule, "insertPlainRows").mockImplementation((em, target, rows) => {
      // Fail the second chunk after its persons, registrations and forms were inserted.
      if (target === FieldValue && ++valueInserts === 2) return Promise.reject(new Error("simulated failure"));
      return insert(em, target, rows);
    });
    const run = await regapi(
      ["seed", "--group", String(MAPLE.groupId), "--users", "120", "--batch", "40"],
      db.dataSource,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const match =
      /^regapi: seed stopped after 40 registrants \(1 whole chunks kept, the failed one rolled back\): simulated failure; usernames (\S+)<n>@seed\.test\n$/.exec(
        run.stderr,
      );
    expect(match).not.toBeNull();

    const seeded = await readSeeded(db.dataSource, match![1], MAPLE.groupId);
    expect(seeded.persons).toHaveLength(40);
    expect(seeded.registrations).toHaveLength(40);
    expectConsistent(seeded, MAPLE.groupId);
  });
});
