import { describeOnMysqlFamily, openTestDatabase, type TestDatabase } from "../support/database";

// SQLite synchronizes its schema from the entities, so there is nothing to drift from there.
describeOnMysqlFamily("MySQL/MariaDB schema after the migrations (skipped on SQLite, which synchronizes)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db.dispose());

  it("has every migration applied", async () => {
    expect(await db.dataSource.showMigrations()).toBe(false);
  });

  it("matches the entities: TypeORM would generate no statement (what migration:generate --check checks)", async () => {
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it("would notice a column that differs from its entity (so the check above can fail)", async () => {
    await db.dataSource.query("ALTER TABLE organization MODIFY name varchar(150) NOT NULL");
    const pending = await db.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query).join("\n")).toMatch(/organization/);
  });
});
