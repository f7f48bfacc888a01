import type { EntityManager } from "typeorm";
import { Product, ProductCategory, type ProductBaseType, type ProductLevel } from "../entities";
import { selectRows, sqlPlaceholders } from "./sql-rows";

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

const CART_PRODUCT = {
  id: "int",
  name: "text",
  price_cents: "int",
  base_type: "int",
  category_id: "intOrNull",
  level: "text",
  available_from: "dateOrNull",
  available_until: "dateOrNull",
  only_one: "flag",
  is_private: "flag",
  quota_ordered: "intOrNull",
  interchange: "flag",
} as const;

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

/** The products of the project among `ids`, with their category's cart rules: one statement. */
export async function loadCartProducts(
  em: EntityManager,
  projectId: number,
  ids: number[],
): Promise<Map<number, CartProduct>> {
  if (ids.length === 0) return new Map();
  const rows = await selectRows(
    em,
    CART_PRODUCT,
    `SELECT p.id, p.name, p.price_cents, p.base_type, p.category_id, p.level, p.available_from, p.available_until,
            p.only_one, p.is_private, c.quota_ordered, c.interchange
       FROM product p LEFT JOIN product_category c ON c.id = p.category_id
      WHERE p.project_id = ? AND p.id IN (${sqlPlaceholders(ids.length)})`,
    [projectId, ...ids],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
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
      },
    ]),
  );
}
