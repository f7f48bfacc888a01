import type { EntityManager } from "typeorm";

// After a bulk write MariaDB/MySQL may plan with statistics taken when the tables were nearly
// empty (InnoDB refreshes them only after 10% of a table changed, in the background), and pick an
// index that walks a whole project. ANALYZE TABLE refreshes them at once.

/** The tables a bulk load or seed fills. */
const BULK_TABLES = [
  "person",
  "registration",
  "registration_form",
  "field_value",
  "registration_tag",
  "cart_line",
  "payment",
  "project_counter",
] as const;

/** Refreshes the optimizer statistics of the bulk-filled tables (MySQL/MariaDB; SQLite plans without them). */
export async function analyzeBulkTables(em: EntityManager): Promise<boolean> {
  if (em.dataSource.options.type === "better-sqlite3") return false;
  await em.query(`ANALYZE TABLE ${BULK_TABLES.join(", ")}`);
  return true;
}
