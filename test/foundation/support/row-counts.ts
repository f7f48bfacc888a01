import type { DataSource } from "typeorm";

/** Rows in every table of the model, by table name: "nothing was written" means this is unchanged. */
export async function rowCounts(dataSource: DataSource): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { tableName } of dataSource.entityMetadatas) {
    const [row] = (await dataSource.query(`SELECT COUNT(*) AS n FROM ${tableName}`)) as { n: number | string }[];
    counts[tableName] = Number(row.n);
  }
  return counts;
}
