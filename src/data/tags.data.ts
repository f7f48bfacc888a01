import type { EntityManager } from "typeorm";
import type { TagRecord } from "./summary-columns";
import { selectRows, sqlPlaceholders } from "./sql-rows";

// A project's tags, a page at a time: admins add tags as they work, so the list has no bound.

/** A page of one project's tags in id order, and whether more follow it. */
export interface TagPage {
  tags: TagRecord[];
  hasNextPage: boolean;
}

/**
 * The same page of each of these projects, in one statement: forward, the first `size` tags
 * after tag id `afterTagId`; backward, the last `size` before `beforeTagId` (or of the list). A
 * window numbers each project's tags from the page's start, and one more than the page tells
 * whether another page follows in that direction. Tags come back in id order either way.
 */
export async function readTagPages(
  em: EntityManager,
  projectIds: readonly number[],
  page: { size: number; afterTagId: number | null; beforeTagId?: number | null; backward?: boolean },
): Promise<Map<number, TagPage>> {
  const pages = new Map<number, TagPage>(projectIds.map((id) => [id, { tags: [], hasNextPage: false }]));
  if (projectIds.length === 0) return pages;
  const direction = page.backward ? "DESC" : "ASC";
  const bounds = [
    ...(page.afterTagId != null ? [["t.id > ?", page.afterTagId] as const] : []),
    ...(page.beforeTagId != null ? [["t.id < ?", page.beforeTagId] as const] : []),
  ];
  const rows = await selectRows(
    em,
    { id: "int", project_id: "int", name: "text", position: "int" },
    `SELECT id, project_id, name, position FROM (
       SELECT t.id, t.project_id, t.name, ROW_NUMBER() OVER (PARTITION BY t.project_id ORDER BY t.id ${direction}) AS position
         FROM tag t
        WHERE t.project_id IN (${sqlPlaceholders(projectIds.length)})${bounds.map(([sql]) => ` AND ${sql}`).join("")}
     ) numbered
     WHERE position <= ? ORDER BY project_id, id`,
    [...projectIds, ...bounds.map(([, value]) => value), page.size + 1],
  );
  for (const row of rows) {
    const found = pages.get(row.project_id)!;
    // The extra row is the one farthest from the page's start: the last forward, the first backward.
    if (row.position > page.size) found.hasNextPage = true;
    else found.tags.push({ id: row.id, name: row.name });
  }
  return pages;
}

/** How many tags each of these projects has, in one statement. */
export async function countTags(em: EntityManager, projectIds: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>(projectIds.map((id) => [id, 0]));
  if (projectIds.length === 0) return counts;
  const rows = await selectRows(
    em,
    { project_id: "int", n: "int" },
    `SELECT project_id, COUNT(*) AS n FROM tag WHERE project_id IN (${sqlPlaceholders(projectIds.length)}) GROUP BY project_id`,
    projectIds,
  );
  for (const row of rows) counts.set(row.project_id, row.n);
  return counts;
}
