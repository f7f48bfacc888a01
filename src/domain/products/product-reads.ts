import type { EntityManager } from "typeorm";
import { groupBy } from "../../common/group-by";
import { readCategoriesOfProjects, readProductsOfProjects } from "../../data/products.data";

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
