import type { DataSource } from "typeorm";

/** Rows in every table of the model, by table name. */
export async function rowCounts(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { tableName } of dataSource.entityMetadatas) {
    const [row] = (await dataSource.query(`SELECT COUNT(*) AS n FROM ${tableName}`)) as { n: number | string }[];
    counts[tableName] = Number(row.n);
  }
  return counts;
}

const asText = (value: unknown) =>
  value instanceof Date
    ? value.toISOString()
    : value === null
      ? null
      : Buffer.isBuffer(value)
        ? value.toString("hex")
        : String(value);

/** Every row of every table, each as one text, sorted: equal snapshots mean nothing was written. */
async function tableContents(dataSource: DataSource): Promise<Record<string, string[]>> {
  const contents: Record<string, string[]> = {};
  for (const { tableName } of dataSource.entityMetadatas) {
    const rows = (await dataSource.query(`SELECT * FROM ${tableName}`)) as Record<string, unknown>[];
    contents[tableName] = rows
      .map((row) => JSON.stringify(Object.entries(row).map(([column, value]) => [column, asText(value)])))
      .sort();
  }
  return contents;
}

/**
 * The feed sequencer places the events of earlier calls in the feed after their COMMIT, in a
 * transaction of its own; a snapshot taken before it has placed them would see that pass as a write
 * of the refused call. Waits (bounded) until every committed event has its feed position.
 */
async function eventsPlaced(dataSource: DataSource, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = (await dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE feed_position IS NULL`)) as {
      n: number | string;
    }[];
    if (Number(row.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${row.n} events still without a feed position after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface TableWatch {
  /** Fails unless every table holds the same number of rows, with the same contents, as when watching began. */
  expectNothingWritten(): Promise<void>;
}

/**
 * Remembers every table (row counts and contents) now; `expectNothingWritten` later proves that a
 * refused call, or a series of them, inserted, updated and deleted nothing.
 */
export async function watchTables(dataSource: DataSource): Promise<TableWatch> {
  await eventsPlaced(dataSource);
  const counts = await rowCounts(dataSource);
  const contents = await tableContents(dataSource);
  return {
    async expectNothingWritten() {
      expect(await rowCounts(dataSource)).toEqual(counts);
      expect(await tableContents(dataSource)).toEqual(contents);
    },
  };
}
