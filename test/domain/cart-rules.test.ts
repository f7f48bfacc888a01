import { CategoryTally, isOfferedTo, type OfferedProductFacts } from "../../src/domain/carts/cart-rules";

// The cart rules as functions: which products a registration may be offered, and what a cart may
// hold per category. add_product, the `_userproducts` list and the seed all decide through these.

const NOW = new Date("2027-06-15T12:00:00Z");
const product = (facts: Partial<OfferedProductFacts> = {}): OfferedProductFacts => ({
  isPrivate: false,
  level: "all",
  availableFrom: null,
  availableUntil: null,
  ...facts,
});

describe("isOfferedTo", () => {
  it("offers a public product of every level, without dates, to parents and children alike", () => {
    expect(isOfferedTo(product(), "parent", NOW)).toBe(true);
    expect(isOfferedTo(product(), "child", NOW)).toBe(true);
  });

  it("never offers a private product (it belongs to one cart)", () => {
    expect(isOfferedTo(product({ isPrivate: true }), "parent", NOW)).toBe(false);
    expect(isOfferedTo(product({ isPrivate: true }), "child", NOW)).toBe(false);
  });

  it("offers a product of one level only to that level", () => {
    expect(isOfferedTo(product({ level: "parent" }), "parent", NOW)).toBe(true);
    expect(isOfferedTo(product({ level: "parent" }), "child", NOW)).toBe(false);
    expect(isOfferedTo(product({ level: "child" }), "child", NOW)).toBe(true);
    expect(isOfferedTo(product({ level: "child" }), "parent", NOW)).toBe(false);
  });

  it("offers within the availability period, both ends included", () => {
    const from = new Date(NOW.getTime());
    const until = new Date(NOW.getTime());
    expect(isOfferedTo(product({ availableFrom: from, availableUntil: until }), "parent", NOW)).toBe(true);
    expect(isOfferedTo(product({ availableFrom: new Date(NOW.getTime() + 1) }), "parent", NOW)).toBe(false);
    expect(isOfferedTo(product({ availableUntil: new Date(NOW.getTime() - 1) }), "parent", NOW)).toBe(false);
    expect(isOfferedTo(product({ availableFrom: new Date(NOW.getTime() - 1) }), "parent", NOW)).toBe(true);
    expect(isOfferedTo(product({ availableUntil: new Date(NOW.getTime() + 1) }), "parent", NOW)).toBe(true);
  });
});

describe("CategoryTally", () => {
  const QUOTA_3 = { quotaOrdered: 3, interchange: false };
  const INTERCHANGE = { quotaOrdered: null, interchange: true };

  it("lets anything without a category or without rules join", () => {
    const tally = new CategoryTally([{ categoryId: 1, quantity: 100 }]);
    expect(tally.refusal(null, QUOTA_3, 100)).toBeNull();
    expect(tally.refusal(1, null, 100)).toBeNull();
  });

  it("refuses units past the category's quota, counting what the cart already holds", () => {
    const tally = new CategoryTally([
      { categoryId: 7, quantity: 2 },
      { categoryId: null, quantity: 50 },
      { categoryId: 8, quantity: 9 },
    ]);
    expect(tally.refusal(7, QUOTA_3, 1)).toBeNull();
    expect(tally.refusal(7, QUOTA_3, 2)).toEqual({ rule: "quota", units: 4, quota: 3 });
    tally.count(7, 1);
    expect(tally.refusal(7, QUOTA_3, 1)).toEqual({ rule: "quota", units: 4, quota: 3 });
  });

  it("allows one line of an interchangeable category, whatever its quantity", () => {
    const tally = new CategoryTally();
    expect(tally.refusal(5, INTERCHANGE, 10)).toBeNull();
    tally.count(5, 10);
    expect(tally.refusal(5, INTERCHANGE, 1)).toEqual({ rule: "interchange" });
    expect(tally.refusal(6, INTERCHANGE, 1)).toBeNull();
  });

  it("checks interchange before the quota", () => {
    const tally = new CategoryTally([{ categoryId: 5, quantity: 3 }]);
    expect(tally.refusal(5, { quotaOrdered: 3, interchange: true }, 1)).toEqual({ rule: "interchange" });
  });

  it("counts nothing for a line without a category", () => {
    const tally = new CategoryTally();
    tally.count(null, 5);
    expect(tally.refusal(1, QUOTA_3, 3)).toBeNull();
  });
});
