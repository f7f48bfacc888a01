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
 * The same page (the first `size` tags after tag id `afterTagId`) of each of these projects, in
 * one statement: a window numbers each project's tags, and one more than the page tells whether
 * another page follows.
 */
export async function readTagPages(
  em: EntityManager,
  projectIds: readonly number[],
  page: { size: number; afterTagId: number | null },
): Promise<Map<number, TagPage>> {
  const pages = new Map<number, TagPage>(projectIds.map((id) => [id, { tags: [], hasNextPage: false }]));
  if (projectIds.length === 0) return pages;
  const rows = await selectRows(
    em,
    { id: "int", project_id: "int", name: "text", position: "int" },
    `SELECT id, project_id, name, position FROM (
       SELECT t.id, t.project_id, t.name, ROW_NUMBER() OVER (PARTITION BY t.project_id ORDER BY t.id) AS position
         FROM tag t
        WHERE t.project_id IN (${sqlPlaceholders(projectIds.length)}) AND t.id > ?
     ) numbered
     WHERE position <= ? ORDER BY project_id, id`,
    [...projectIds, page.afterTagId ?? 0, page.size + 1],
  );
  for (const row of rows) {
    const found = pages.get(row.project_id)!;
    if (row.position > page.size) found.hasNextPage = true;
    else found.tags.push({ id: row.id, name: row.name });
  }
  return pages;
}
