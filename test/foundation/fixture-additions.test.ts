import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequestContext } from "../../src/domain/context";
import { CartLine, Payment, Product, ProductCategory, Registration } from "../../src/entities";
import { FixtureError } from "../../src/fixtures/check-fixture";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { rowCounts } from "../support/tables";

/** The spec example of fixtures.md with its "Additions for products, categories and UTM" applied. */
const withAdditions = () =>
  JSON.parse(readFileSync(join(__dirname, "../fixtures/spec-example-with-additions.json"), "utf8")) as {
    organizations: { projects: Record<string, unknown[]>[] }[];
  };
const project = (fixture: ReturnType<typeof withAdditions>) =>
  fixture.organizations[0].projects[0] as unknown as {
    categories: Record<string, unknown>[];
    products: Record<string, unknown>[];
    users: Record<string, unknown>[];
  };
const project0 = "organizations[0].projects[0]";

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.dispose());

const load = (fixture: unknown) => loadFixture(createRequestContext(db.state, "test"), fixture);

async function expectRefused(fixture: unknown): Promise<FixtureError> {
  const before = await rowCounts(db.dataSource);
  const error = await load(fixture).then(
    () => {
      throw new Error("the fixture was accepted");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FixtureError);
  expect(await rowCounts(db.dataSource)).toEqual(before);
  return error as FixtureError;
}

describe("a broken copy of the additions is refused with the member's path, and nothing is written", () => {
  it("a product's category that is not a category of the project", async () => {
    const fixture = withAdditions();
    project(fixture).products[0].categoryId = 13;
    expect((await expectRefused(fixture)).message).toBe(
      `${project0}.products[0].categoryId: category 13 is not a category of this project`,
    );
  });

  it("a base type outside 1–7", async () => {
    const fixture = withAdditions();
    project(fixture).products[0].baseType = 9;
    expect((await expectRefused(fixture)).message).toBe(`${project0}.products[0].baseType: baseType must be 1 to 7`);
  });

  it("an unknown product level", async () => {
    const fixture = withAdditions();
    project(fixture).products[0].level = "kids";
    expect((await expectRefused(fixture)).path).toBe(`${project0}.products[0].level`);
  });

  it("an end date before the start date", async () => {
    const fixture = withAdditions();
    project(fixture).products[0].endDate = "2025-12-31";
    expect((await expectRefused(fixture)).message).toBe(`${project0}.products[0].endDate: endDate is before startDate`);
  });

  it("a session whose parent is not a session holder", async () => {
    const fixture = withAdditions();
    project(fixture).products.push({ id: 78, name: "Morning", price: "10.00", baseType: 4, parentProductId: 77 });
    expect((await expectRefused(fixture)).message).toBe(
      `${project0}.products[1].parentProductId: product 77 is not a session holder (baseType 3) of this project`,
    );
  });

  it("two categories whose names differ only in case", async () => {
    const fixture = withAdditions();
    project(fixture).categories.push({ id: 13, name: "CAMP WEEKS" });
    expect((await expectRefused(fixture)).message).toBe(
      `${project0}.categories[1].name: duplicate category name "CAMP WEEKS" (names compare case-insensitively)`,
    );
  });

  it("an unknown UTM member", async () => {
    const fixture = withAdditions();
    project(fixture).users[0].utm = { source: "newsletter", channel: "mail" };
    expect((await expectRefused(fixture)).path).toBe(`${project0}.users[0].utm`);
  });
});

describe("the spec example with the additions", () => {
  it("loads, with categories, product details, payment method and UTM in place", async () => {
    await load(withAdditions());
    const em = db.dataSource.manager;
    expect(await em.findOneByOrFail(ProductCategory, { id: 12 })).toMatchObject({
      projectId: 100909072,
      name: "Camp weeks",
      nameKey: "camp weeks",
      topRemark: "Pick your weeks",
      bottomRemark: null,
      quotaOrdered: 4,
      interchange: false,
      mandatory: false,
    });
    const week = await em.findOneByOrFail(Product, { id: 77 });
    expect(week).toMatchObject({
      categoryId: 12,
      baseType: 1,
      level: "all",
      onlyOne: true,
      remarks: "Mon–Fri",
      location: "Lake site",
      internalId: "W1",
      parentProductId: null,
      isPrivate: false,
    });
    expect(new Date(week.availableFrom!).toISOString()).toBe("2026-01-01T00:00:00.000Z");
    // A bare end date covers that whole day.
    expect(new Date(week.availableUntil!).toISOString()).toBe("2027-08-31T23:59:59.999Z");
    const registration = await em.findOneByOrFail(Registration, { personId: 102670540 });
    expect(registration).toMatchObject({ utmSource: "newsletter", utmCampaign: "spring", utmTerm: null });
    expect(await em.findBy(Payment, { registrationId: registration.uid })).toMatchObject([
      { amountCents: 10000, method: "card", note: null },
    ]);
    expect(await em.findBy(CartLine, { registrationId: registration.uid })).toMatchObject([
      { productId: 77, remark: null, recurringStartDate: null },
    ]);
  });
});
