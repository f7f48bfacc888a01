import type { EntityManager } from "typeorm";
import { CartLine, Product } from "../entities";
import { insertRows } from "../db/insert-rows";
import { CART_PRODUCT, CART_PRODUCT_MEMBERS, toCartProduct, type CartProduct } from "./products.data";
import { decodeJsonRows, jsonObjectsSql, selectRawRows, selectRows, sqlPlaceholders } from "./sql-rows";

// SQL of the carts component: a registration's cart lines and new ones.

export interface CartContent {
  productId: number;
  categoryId: number | null;
  quantity: number;
}

/** What adding to a registration's cart needs: the products asked for and the cart as it is. */
export interface CartBeforeAdding {
  /** The project's products among those asked for, with their category's cart rules. */
  products: Map<number, CartProduct>;
  /** The lines already in the cart, with each product's category. */
  lines: CartContent[];
  /** The cart's highest line id (0 for an empty cart): the new lines are those above it. */
  lastLineId: number;
}

const LINE_MEMBERS = [
  ["id", "l.id"],
  ["product_id", "l.product_id"],
  ["category_id", "p.category_id"],
  ["quantity", "l.quantity"],
] as const;
const LINE_SHAPE = { id: "int", product_id: "int", category_id: "intOrNull", quantity: "int" } as const;

/**
 * The products of the project among `productIds` and the registration's cart, in one statement.
 * The caller holds the registration's family lock: the cart cannot change until it commits.
 */
export async function readCartBeforeAdding(
  em: EntityManager,
  projectId: number,
  registrationId: number,
  productIds: readonly number[],
): Promise<CartBeforeAdding> {
  const asked = productIds.length === 0 ? "1 = 0" : `p.id IN (${sqlPlaceholders(productIds.length)})`;
  const sql = `SELECT
      (SELECT ${jsonObjectsSql(em, LINE_MEMBERS)} FROM cart_line l JOIN product p ON p.id = l.product_id
        WHERE l.registration_id = ?) AS cart_lines,
      (SELECT ${jsonObjectsSql(em, CART_PRODUCT_MEMBERS)} FROM product p LEFT JOIN product_category c ON c.id = p.category_id
        WHERE p.project_id = ? AND ${asked}) AS products`;
  const [row] = await selectRawRows(em, sql, [registrationId, projectId, ...productIds]);
  const lines = decodeJsonRows(LINE_SHAPE, row.cart_lines, sql);
  return {
    products: new Map(
      decodeJsonRows(CART_PRODUCT, row.products, sql).map((product) => [product.id, toCartProduct(product)]),
    ),
    lines: lines.map((l) => ({ productId: l.product_id, categoryId: l.category_id, quantity: l.quantity })),
    lastLineId: lines.reduce((last, l) => Math.max(last, l.id), 0),
  };
}

export type NewCartLine = Omit<CartLine, "id" | "registration" | "product">;

/**
 * Inserts the lines in one multi-row statement and returns their ids in order: those above the
 * registration's highest line before the insert (`lastLineId`, from readCartBeforeAdding). The
 * caller holds the registration's lock, so no other line of it can appear in between; the ids of
 * one multi-row insert need not be consecutive (innodb_autoinc_lock_mode 2, Galera's
 * auto_increment_increment), so they are read back rather than computed.
 */
export async function insertCartLines(
  em: EntityManager,
  registrationId: number,
  lines: NewCartLine[],
  lastLineId: number,
): Promise<number[]> {
  if (lines.length === 0) return [];
  await insertRows(em, CartLine, lines);
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM cart_line WHERE registration_id = ? AND id > ? ORDER BY id`,
    [registrationId, lastLineId],
  );
  return rows.map((row) => row.id);
}

/** Private products: one row per line, made for this cart only. */
export async function insertPrivateProducts(em: EntityManager, products: Omit<Product, "id">[]): Promise<number[]> {
  const ids: number[] = [];
  for (const product of products) ids.push(Number((await em.insert(Product, product)).identifiers[0].id));
  return ids;
}
