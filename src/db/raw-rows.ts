// Reading rows of hand-written SQL the same way on every driver: mysql2 returns COUNT/SUM as
// numbers or decimal strings and booleans as 0/1; better-sqlite3 returns integers.

/** A numeric column (counts, sums, ids); NULL reads as 0. */
export const sqlNumber = (value: unknown): number => Number(value ?? 0);

/** A boolean column, stored as 1/0 on every database. */
export const sqlFlag = (value: unknown): boolean => value === true || Number(value) === 1;

/** `?, ?, ?` for an IN list of `count` bound values. */
export const sqlPlaceholders = (count: number): string => Array.from({ length: count }, () => "?").join(", ");
