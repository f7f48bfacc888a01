/**
 * True when a write failed on a unique index or primary key: MySQL/MariaDB `ER_DUP_ENTRY`
 * (errno 1062) or SQLite's `SQLITE_CONSTRAINT_UNIQUE` / `_PRIMARYKEY`. TypeORM wraps the driver's
 * error in `driverError`; both levels are read. Used where a race past a check-then-insert must
 * become a CONFLICT instead of a 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  const outer = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } } | null;
  const codes = [outer?.driverError?.code, outer?.code];
  return (
    codes.some(
      (code) =>
        code === "ER_DUP_ENTRY" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY",
    ) ||
    outer?.driverError?.errno === 1062 ||
    outer?.errno === 1062
  );
}
