import type { EntityManager } from "typeorm";
import { Product, ProductCategory, type ProductBaseType, type ProductLevel } from "../entities";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

// SQL of the products component: categories, products and what add_product needs to know about them.

const CATEGORY_REF = { id: "int", name: "text" } as const;

/**
 * The category of this name (compared by its lower-cased key). Inside a caller's MySQL/MariaDB
 * transaction a plain read sees the snapshot, so it reads with a shared lock there.
 */
export async function findCategoryByNameKey(
  em: EntityManager,
  projectId: number,
  nameKey: string,
  lockForRead: boolean,
): Promise<{ id: number; name: string } | null> {
  const lock = lockForRead && em.dataSource.options.type !== "better-sqlite3" ? " LOCK IN SHARE MODE" : "";
  const rows = await selectRows(
    em,
    CATEGORY_REF,
    `SELECT id, name FROM product_category WHERE project_id = ? AND name_key = ?${lock}`,
    [projectId, nameKey],
  );
  return rows[0] ?? null;
}

export async function insertCategory(em: EntityManager, category: Omit<ProductCategory, "id">): Promise<number> {
  const inserted = await em.insert(ProductCategory, category);
  return Number(inserted.identifiers[0].id);
}

export async function insertProduct(em: EntityManager, product: Omit<Product, "id">): Promise<number> {
  const inserted = await em.insert(Product, product);
  return Number(inserted.identifiers[0].id);
}

/** Which of these ids are categories of the project, and which products of the project (with their base type). */
export async function findProductReferences(
  em: EntityManager,
  projectId: number,
  categoryIds: number[],
  productIds: number[],
): Promise<{ categoryIds: Set<number>; productTypes: Map<number, number> }> {
  const categories =
    categoryIds.length === 0
      ? []
      : await selectRows(
          em,
          { id: "int" },
          `SELECT id FROM product_category WHERE project_id = ? AND id IN (${sqlPlaceholders(categoryIds.length)})`,
          [projectId, ...categoryIds],
        );
  const products =
    productIds.length === 0
      ? []
      : await selectRows(
          em,
          { id: "int", base_type: "int" },
          `SELECT id, base_type FROM product WHERE project_id = ? AND id IN (${sqlPlaceholders(productIds.length)})`,
          [projectId, ...productIds],
        );
  return {
    categoryIds: new Set(categories.map((row) => row.id)),
    productTypes: new Map(products.map((row) => [row.id, row.base_type])),
  };
}

/** The product table's row: the one shape of every statement that reads whole products. */
const PRODUCT_ROW = {
  id: "int",
  project_id: "int",
  name: "text",
  price_cents: "int",
  base_type: "int",
  category_id: "intOrNull",
  level: "text",
  available_from: "dateOrNull",
  available_until: "dateOrNull",
  only_one: "flag",
  is_private: "flag",
  lock_once_funds_allocated: "flag",
  remarks: "textOrNull",
  location: "textOrNull",
  internal_id: "textOrNull",
  misc1: "textOrNull",
  misc2: "textOrNull",
  parent_product_id: "intOrNull",
} as const;

const productColumns = (alias: string) =>
  Object.keys(PRODUCT_ROW)
    .map((column) => `${alias}.${column}`)
    .join(", ");

/** What of a product row decides whether it is offered to a user (the domain's cart rules decide). */
export const offerOfProductRow = (row: {
  is_private: boolean;
  level: string;
  available_from: Date | null;
  available_until: Date | null;
}) => ({
  isPrivate: row.is_private,
  level: row.level,
  availableFrom: row.available_from,
  availableUntil: row.available_until,
});

/** A product as a cart sees it (alias `p`, its category `c`): the product's row and its category's cart rules. */
export const CART_PRODUCT = { ...PRODUCT_ROW, quota_ordered: "intOrNull", interchange: "flag" } as const;

/** The members of CART_PRODUCT and the SQL of each, for a JSON object per product. */
export const CART_PRODUCT_MEMBERS: readonly (readonly [string, string])[] = [
  ...Object.keys(PRODUCT_ROW).map((column) => [column, `p.${column}`] as const),
  ["quota_ordered", "c.quota_ordered"],
  ["interchange", "c.interchange"],
];

export interface CartProduct {
  id: number;
  name: string;
  priceCents: number;
  baseType: ProductBaseType;
  categoryId: number | null;
  level: ProductLevel;
  availableFrom: Date | null;
  availableUntil: Date | null;
  onlyOne: boolean;
  isPrivate: boolean;
  category: { quotaOrdered: number | null; interchange: boolean } | null;
}

export const toCartProduct = (row: RowOf<typeof CART_PRODUCT>): CartProduct => ({
  id: row.id,
  name: row.name,
  priceCents: row.price_cents,
  baseType: row.base_type as ProductBaseType,
  categoryId: row.category_id,
  level: row.level as ProductLevel,
  availableFrom: row.available_from,
  availableUntil: row.available_until,
  onlyOne: row.only_one,
  isPrivate: row.is_private,
  category: row.category_id === null ? null : { quotaOrdered: row.quota_ordered, interchange: row.interchange },
});

const CATEGORY_ROW = {
  id: "int",
  project_id: "int",
  name: "text",
  top_remark: "textOrNull",
  bottom_remark: "textOrNull",
  quota_ordered: "intOrNull",
  interchange: "flag",
  mandatory: "flag",
} as const;

/** The categories of these projects, by id: one statement. */
export async function readCategoriesOfProjects(em: EntityManager, projectIds: readonly number[]) {
  if (projectIds.length === 0) return [];
  return selectRows(
    em,
    CATEGORY_ROW,
    `SELECT id, project_id, name, top_remark, bottom_remark, quota_ordered, interchange, mandatory
       FROM product_category WHERE project_id IN (${sqlPlaceholders(projectIds.length)}) ORDER BY id`,
    [...projectIds],
  );
}

/** The non-private products of these projects, by id: one statement. */
export async function readProductsOfProjects(em: EntityManager, projectIds: readonly number[]) {
  if (projectIds.length === 0) return [];
  return selectRows(
    em,
    PRODUCT_ROW,
    `SELECT ${productColumns("p")}
       FROM product p WHERE p.is_private = 0 AND p.project_id IN (${sqlPlaceholders(projectIds.length)}) ORDER BY p.id`,
    [...projectIds],
  );
}
