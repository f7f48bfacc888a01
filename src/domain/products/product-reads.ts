import type { EntityManager } from "typeorm";
import { groupBy } from "../../common/group-by";
import { offerOfProductRow, readCategoriesOfProjects, readProductsOfProjects } from "../../data/products.data";
import { isOfferedTo } from "../carts/cart-rules";
import type { RequestContext } from "../context";
import { registrationLevel } from "../forms/form-rules";

export type CategoryRow = Awaited<ReturnType<typeof readCategoriesOfProjects>>[number];
export type ProductRow = Awaited<ReturnType<typeof readProductsOfProjects>>[number];

const byProject = <Row extends { project_id: number }>(rows: Row[]) => groupBy(rows, (row) => row.project_id);

/** The categories of each project (batched for GraphQL loaders; the caller checked ownership). */
export async function readProjectCategories(em: EntityManager, projectIds: readonly number[]) {
  return byProject(await readCategoriesOfProjects(em, projectIds));
}

/** The products of each project that anyone may be offered (private ones belong to one cart). */
export async function readProjectProducts(em: EntityManager, projectIds: readonly number[]) {
  return byProject(await readProductsOfProjects(em, projectIds));
}

/**
 * The products of a project the caller sees: for an API account every non-private one; for a
 * registrant session those of its own project it may add to its cart at `now` (the cart's rule:
 * its level's or every level's, available that day), so a portal offers nothing add_product refuses.
 */
export function productsVisibleTo(ctx: RequestContext, rows: readonly ProductRow[], now: Date): ProductRow[] {
  const registrant = ctx.registrant;
  if (!registrant) return [...rows];
  const level = registrationLevel(registrant.parentCloginId);
  return rows.filter((row) => row.project_id === registrant.groupId && isOfferedTo(offerOfProductRow(row), level, now));
}
