import type { EntityManager } from "typeorm";
import { CartLine, Product } from "../entities";
import { insertRows } from "../db/insert-rows";
import { CART_PRODUCT, CART_PRODUCT_MEMBERS, toCartProduct, type CartProduct } from "./products.data";
import { paymentAmountSql } from "./account-sums";
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

/** A cart line as removing it needs it: its product's offer facts and lock, and what the registration has paid. */
export interface CartLineForRemoval {
  id: number;
  productId: number;
  quantity: number;
  unitPriceCents: number;
  product: {
    isPrivate: boolean;
    level: string;
    availableFrom: Date | null;
    availableUntil: Date | null;
    lockOnceFundsAllocated: boolean;
  };
  /** The registration's payments, summed: money allocated to it. */
  paidCents: number;
}

const LINE_FOR_REMOVAL = {
  id: "int",
  product_id: "int",
  quantity: "int",
  unit_price_cents: "int",
  is_private: "flag",
  level: "text",
  available_from: "dateOrNull",
  available_until: "dateOrNull",
  lock_once_funds_allocated: "flag",
  paid_cents: "int",
} as const;

/**
 * The line `cartLineId` of the registration, with its product and the registration's payments, in
 * one statement; null when the registration has no such line. The caller holds the registration's
 * lock, so neither the cart nor its payments change until it commits.
 */
export async function readCartLineForRemoval(
  em: EntityManager,
  registrationId: number,
  cartLineId: number,
): Promise<CartLineForRemoval | null> {
  const [row] = await selectRows(
    em,
    LINE_FOR_REMOVAL,
    `SELECT l.id, l.product_id, l.quantity, l.unit_price_cents, p.is_private, p.level, p.available_from,
            p.available_until, p.lock_once_funds_allocated,
            COALESCE((SELECT SUM(${paymentAmountSql("pay")}) FROM payment pay WHERE pay.registration_id = l.registration_id), 0) AS paid_cents
       FROM cart_line l JOIN product p ON p.id = l.product_id
      WHERE l.id = ? AND l.registration_id = ?`,
    [cartLineId, registrationId],
  );
  if (!row) return null;
  return {
    id: row.id,
    productId: row.product_id,
    quantity: row.quantity,
    unitPriceCents: row.unit_price_cents,
    product: {
      isPrivate: row.is_private,
      level: row.level,
      availableFrom: row.available_from,
      availableUntil: row.available_until,
      lockOnceFundsAllocated: row.lock_once_funds_allocated,
    },
    paidCents: row.paid_cents,
  };
}

/** Deletes one cart line (found by readCartLineForRemoval under the registration's lock). */
export async function deleteCartLine(em: EntityManager, cartLineId: number): Promise<void> {
  await em.query(`DELETE FROM cart_line WHERE id = ?`, [cartLineId]);
}
