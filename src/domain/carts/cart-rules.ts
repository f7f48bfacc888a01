import type { RegistrationLevel } from "../forms/form-rules";

// Which products a user may buy and what a cart may hold, written once: add_product enforces
// them, a user's `_userproducts` lists what they allow, and the seed builds carts a client could.

/** What of a product decides whether it is offered. */
export interface OfferedProductFacts {
  isPrivate: boolean;
  level: string;
  availableFrom: Date | null;
  availableUntil: Date | null;
}

/**
 * A user may add a product that is not private (a private one belongs to one cart), of the
 * user's level ("all", or "parent" for a parent or individual, "child" for a child) and available
 * at `now` (both ends included).
 */
export function isOfferedTo(product: OfferedProductFacts, level: RegistrationLevel, now: Date): boolean {
  if (product.isPrivate) return false;
  if (product.level !== "all" && product.level !== level) return false;
  if (product.availableFrom && now.getTime() < product.availableFrom.getTime()) return false;
  if (product.availableUntil && now.getTime() > product.availableUntil.getTime()) return false;
  return true;
}

/** A category's cart rules. */
export interface CategoryRules {
  quotaOrdered: number | null;
  interchange: boolean;
}

/** Why a line may not join the cart: its category holds interchangeable products, or the quota would be passed. */
export type CategoryRefusal = { rule: "interchange" } | { rule: "quota"; units: number; quota: number };

/**
 * The units and lines a cart holds per category, so that each line added is checked against its
 * category's quota (units ordered) and interchange (at most one line of the category) rules.
 */
export class CategoryTally {
  private readonly units = new Map<number, number>();
  private readonly lines = new Map<number, number>();

  constructor(cart: Iterable<{ categoryId: number | null; quantity: number }> = []) {
    for (const line of cart) if (line.categoryId !== null) this.count(line.categoryId, line.quantity);
  }

  /** Null when `quantity` units of a product of the category may join the cart. */
  refusal(categoryId: number | null, rules: CategoryRules | null, quantity: number): CategoryRefusal | null {
    if (categoryId === null || rules === null) return null;
    if (rules.interchange && (this.lines.get(categoryId) ?? 0) > 0) return { rule: "interchange" };
    const units = (this.units.get(categoryId) ?? 0) + quantity;
    if (rules.quotaOrdered !== null && units > rules.quotaOrdered) {
      return { rule: "quota", units, quota: rules.quotaOrdered };
    }
    return null;
  }

  /** Counts a line that joined the cart. */
  count(categoryId: number | null, quantity: number): void {
    if (categoryId === null) return;
    this.units.set(categoryId, (this.units.get(categoryId) ?? 0) + quantity);
    this.lines.set(categoryId, (this.lines.get(categoryId) ?? 0) + 1);
  }
}
