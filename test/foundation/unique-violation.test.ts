import { isUniqueViolation } from "../../src/db/unique-violation";
import { Organization, Status } from "../../src/entities";
import { openTestDatabase, type TestDatabase } from "../support/database";

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await db.dataSource.manager.insert(Organization, { id: 1, name: "Org" });
});
afterAll(() => db.dispose());

describe("isUniqueViolation (a race past check-then-insert becomes CONFLICT, not 500)", () => {
  it("recognises this database's duplicate primary key error", async () => {
    const error = await db.dataSource.manager.insert(Organization, { id: 1, name: "Again" }).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("recognises this database's unique index error", async () => {
    await db.dataSource.query(
      "INSERT INTO project (id, organization_id, name, currency, created_at, archived, family_system) VALUES (7, 1, 'P', 'USD', '2026-01-01 00:00:00', 0, 0)",
    );
    await db.dataSource.manager.insert(Status, {
      projectId: 7,
      name: "A",
      nameKey: "a",
      color: "#000000",
      isExcluded: false,
    });
    const error = await db.dataSource.manager
      .insert(Status, { projectId: 7, name: "a", nameKey: "a", color: "#000000", isExcluded: false })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("does not mistake other failures for it", async () => {
    const error = await db.dataSource.query("SELECT no_such_column FROM organization").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isUniqueViolation(error)).toBe(false);
    expect(isUniqueViolation(new Error("Duplicate entry in a message only"))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
