import type { EntityManager } from "typeorm";
import { CartLine, Product } from "../entities";
import { insertRows } from "../db/insert-rows";
import { selectRows } from "./sql-rows";

// SQL of the carts component: a registration's cart lines and new ones.

export interface CartContent {
  productId: number;
  categoryId: number | null;
  quantity: number;
}

/** The lines already in a registration's cart, with each product's category: one statement. */
export async function loadCartContent(em: EntityManager, registrationId: number): Promise<CartContent[]> {
  const rows = await selectRows(
    em,
    { product_id: "int", category_id: "intOrNull", quantity: "int" },
    `SELECT l.product_id, p.category_id, l.quantity
       FROM cart_line l JOIN product p ON p.id = l.product_id
      WHERE l.registration_id = ?`,
    [registrationId],
  );
  return rows.map((row) => ({ productId: row.product_id, categoryId: row.category_id, quantity: row.quantity }));
}

export type NewCartLine = Omit<CartLine, "id" | "registration" | "product">;

/**
 * Inserts the lines in one multi-row statement and returns their ids in order. Ids are read back
 * as those above the registration's highest line before the insert: the registration row is
 * locked by the caller, so no other line of it can appear in between.
 */
export async function insertCartLines(
  em: EntityManager,
  registrationId: number,
  lines: NewCartLine[],
): Promise<number[]> {
  if (lines.length === 0) return [];
  const [before] = await selectRows(
    em,
    { last_id: "int" },
    `SELECT COALESCE(MAX(id), 0) AS last_id FROM cart_line WHERE registration_id = ?`,
    [registrationId],
  );
  await insertRows(em, CartLine, lines);
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM cart_line WHERE registration_id = ? AND id > ? ORDER BY id`,
    [registrationId, before.last_id],
  );
  return rows.map((row) => row.id);
}

/** Private products: one row per line, made for this cart only. */
export async function insertPrivateProducts(em: EntityManager, products: Omit<Product, "id">[]): Promise<number[]> {
  const ids: number[] = [];
  for (const product of products) ids.push(Number((await em.insert(Product, product)).identifiers[0].id));
  return ids;
}
