import { z } from "zod";
import type { EntityManager } from "typeorm";
import {
  insertCartLines,
  insertPrivateProducts,
  readCartBeforeAdding,
  type CartBeforeAdding,
  type CartContent,
  type NewCartLine,
} from "../../data/carts.data";
import type { CartProduct } from "../../data/products.data";
import { registrationLevel, type RegistrationLevel } from "../forms/form-rules";
import { CategoryTally, isOfferedTo, type CategoryRefusal } from "./cart-rules";
import { PRODUCT_BASE_TYPES } from "../../entities";
import { requireRegistrant, type RequestContext } from "../context";
import { validationFailed, type Problem, type ProblemPath } from "../errors";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { MemberReader } from "../member-parsers";
import { inTransaction } from "../transaction";
import { recordEvent } from "../events/record-event";
import { counterBucketOf, requireRegisteredUser } from "../users/registration-lookup";
import type { UserOutcome } from "../users/user-commands";
import { loadUserSummaries } from "../users/user-summary";
import { clientValue } from "../../common/client-value";
import { lineAmountCents } from "../account-totals";
import { countOrder } from "../projects/project-counters";

// users `add_product` (contract §13, §18): products of the project, or private ones made for this
// cart by name, added to a user's cart, all or nothing.

export const MAX_PRODUCTS_PER_CALL = 50;

// What an entry accepts on the wire, for generated API documents; readEntries below is the check.
const ID_OR_DIGITS = {
  anyOf: [
    { type: "integer", minimum: 0 },
    { type: "string", pattern: "^\\d{1,15}$" },
  ],
};
const PRODUCT_ENTRY_JSON_SCHEMA = {
  type: "object",
  description: "A product of the project (pId), or a private product made for this cart (name and price, no pId).",
  properties: {
    pId: ID_OR_DIGITS,
    q: { ...ID_OR_DIGITS, description: "Quantity, 1 to 999." },
    productRemark: { type: "string", maxLength: 2000 },
    recurringStartDate: { type: "string", description: "Subscriptions (type 6) only." },
    dateStructure: { type: "string", default: "mm-dd-yyyy" },
    name: { type: "string", maxLength: 200 },
    price: { type: ["string", "number"], description: "Private products: the unit price." },
  },
  required: ["q"],
};

/** users `add_product`, with `productList` exactly as sent (one object or an array of them, in the command's names: pId, q, productRemark, recurringStartDate, dateStructure, or name and price). */
export const AddProductCommand = z.object({
  groupId: integerId,
  cloginId: integerId,
  /** Checked entry by entry below: which members an entry takes depends on its product. */
  productList: z
    .unknown()
    .optional()
    .meta({
      description: `One product entry or an array of 1 to ${MAX_PRODUCTS_PER_CALL}.`,
      anyOf: [
        PRODUCT_ENTRY_JSON_SCHEMA,
        { type: "array", items: PRODUCT_ENTRY_JSON_SCHEMA, minItems: 1, maxItems: MAX_PRODUCTS_PER_CALL },
      ],
    }),
});

export interface AddProductOutcome extends UserOutcome {
  cartIds: number[];
}

const MAX_QUANTITY = 999;
const DEFAULT_DATE_STRUCTURE = "mm-dd-yyyy";

type Entry =
  | {
      kind: "product";
      index: number;
      productId: number;
      quantity: number;
      remark: string | null;
      startDate: Date | null;
    }
  | { kind: "private"; index: number; name: string; priceCents: number; quantity: number; remark: string | null };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads every entry, reporting every problem of every entry. */
function readEntries(productList: unknown): Entry[] {
  const read = new MemberReader();
  const list = isObject(productList) ? [productList] : productList;
  if (productList === undefined || productList === null) read.problem(["productList"], "REQUIRED", "is required");
  else if (!Array.isArray(list))
    read.problem(["productList"], "WRONG_TYPE", "must be a product object or an array of them", list);
  else if (list.length === 0) read.problem(["productList"], "TOO_FEW_ITEMS", "must hold at least one product");
  else if (list.length > MAX_PRODUCTS_PER_CALL)
    read.problem(
      ["productList"],
      "TOO_MANY_ITEMS",
      `must hold at most ${MAX_PRODUCTS_PER_CALL} products, got ${list.length}`,
    );
  if (read.problems.length > 0) throw invalid(read.problems);

  const entries: Entry[] = [];
  (list as unknown[]).forEach((raw, index) => {
    const path = (member?: string): ProblemPath => (member ? ["productList", index, member] : ["productList", index]);
    if (!isObject(raw)) {
      read.problem(path(), "WRONG_TYPE", `must be a product object, got ${clientValue(raw)}`, raw);
      return;
    }
    const quantity = read.integer(path("q"), raw.q, { required: true });
    if (quantity !== null && (quantity < 1 || quantity > MAX_QUANTITY))
      read.problem(
        path("q"),
        "OUT_OF_RANGE",
        `must be an integer from 1 to ${MAX_QUANTITY}, got ${clientValue(raw.q)}`,
        raw.q,
      );
    const remark = read.text(path("productRemark"), raw.productRemark, { required: false, max: 2000 });
    const isPrivate = raw.pId === undefined && raw.name !== undefined;
    if (isPrivate) {
      const name = read.text(path("name"), raw.name, { required: true, max: 200 });
      const priceCents = read.money(path("price"), raw.price, { required: true });
      if (raw.recurringStartDate !== undefined)
        read.problem(path("recurringStartDate"), "NOT_ALLOWED", "is only accepted for subscriptions (type 6)");
      if (name !== null && priceCents !== null && quantity !== null)
        entries.push({ kind: "private", index, name, priceCents, quantity, remark });
      return;
    }
    const productId = read.integer(path("pId"), raw.pId, { required: true });
    const startDate = readStartDate(read, path, raw.recurringStartDate, raw.dateStructure);
    if (productId !== null && quantity !== null)
      entries.push({ kind: "product", index, productId, quantity, remark, startDate });
  });
  if (read.problems.length > 0) throw invalid(read.problems);
  return entries;
}

/** `recurring_start_date` in `date_structure` (tokens mm, dd, yyyy joined by -, / or .). */
function readStartDate(
  read: MemberReader,
  path: (member: string) => ProblemPath,
  value: unknown,
  structure: unknown,
): Date | null {
  if (value === undefined || value === null || value === "") return null;
  const format = structure === undefined || structure === null ? DEFAULT_DATE_STRUCTURE : structure;
  const match = typeof format === "string" ? /^(mm|dd|yyyy)([-/.])(mm|dd|yyyy)\2(mm|dd|yyyy)$/.exec(format) : null;
  const tokens = match ? [match[1], match[3], match[4]] : [];
  if (!match || new Set(tokens).size !== 3) {
    read.problem(
      path("dateStructure"),
      "INVALID_FORMAT",
      `must order mm, dd and yyyy joined by -, / or . (e.g. "mm-dd-yyyy"), got ${clientValue(structure)}`,
      structure,
    );
    return null;
  }
  const separator = match[2];
  const parts = typeof value === "string" ? value.trim().split(separator) : [];
  const widths: Record<string, number> = { mm: 2, dd: 2, yyyy: 4 };
  const valid = parts.length === 3 && parts.every((part, i) => new RegExp(`^\\d{${widths[tokens[i]]}}$`).test(part));
  if (valid) {
    const at = (token: string) => Number(parts[tokens.indexOf(token)]);
    const date = new Date(Date.UTC(at("yyyy"), at("mm") - 1, at("dd")));
    if (date.getUTCMonth() === at("mm") - 1 && date.getUTCDate() === at("dd")) return date;
  }
  read.problem(
    path("recurringStartDate"),
    "INVALID_DATE",
    `must be a date as ${format as string}, got ${clientValue(value)}`,
    value,
  );
  return null;
}

const invalid = (problems: Problem[]) => validationFailed(problems);

/**
 * users `add_product`. Throws FORBIDDEN, USER_NOT_FOUND or VALIDATION_FAILED (every entry's
 * problems at once: shape, products the user may not buy, category quota and interchange rules).
 * `only_one` products are capped at one unit and not added twice, with notices.
 */
export async function addProducts(
  ctx: RequestContext,
  draft: CommandDraft<typeof AddProductCommand>,
): Promise<AddProductOutcome> {
  const cmd = parseCommand(AddProductCommand, draft);
  const entries = readEntries(cmd.productList);
  authorize(ctx, "users.add_product", { groupId: cmd.groupId });
  // Outside the transaction: the family's lock is its first statement, so what it reads after is current.
  await resolveOwnedProject(ctx, cmd.groupId);
  return addEntries(ctx, cmd, entries);
}

/**
 * A registrant session's own cart (GraphQL `addMyProduct`): the entries of users `add_product`
 * with the same rules, limited to what `me.project.products` offers (products of the project of
 * its level, available today; no private product made by name). Throws VALIDATION_FAILED.
 */
export async function addOwnProducts(ctx: RequestContext, draft: { productList: unknown }): Promise<AddProductOutcome> {
  const me = requireRegistrant(ctx);
  const entries = readEntries(draft.productList);
  const privateOnes = entries.filter((entry) => entry.kind === "private");
  if (privateOnes.length > 0)
    throw invalid(
      privateOnes.map((entry) => ({
        path: ["productList", entry.index, "pId"],
        reason: "REQUIRED",
        message: "is required: a registrant adds products of the project (me.project.products), not new ones by name",
      })),
    );
  return addEntries(ctx, { groupId: me.groupId, cloginId: me.cloginId }, entries);
}

async function addEntries(
  ctx: RequestContext,
  cmd: { groupId: number; cloginId: number },
  entries: Entry[],
): Promise<AddProductOutcome> {
  return inTransaction(ctx, "users.add_product", async ({ em }) => {
    const now = new Date();
    // Locked: concurrent adds to one cart run one after the other, so the category rules hold.
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId, { lock: true });
    const productIds = [...new Set(entries.flatMap((e) => (e.kind === "product" ? [e.productId] : [])))];
    const { products, lines: cart, lastLineId } = await readCartBeforeAdding(em, cmd.groupId, user.uid, productIds);
    const plan = planProductLines(entries, { products, cart, level: registrationLevel(user.parentCloginId), now });
    if (plan.problems.length > 0) throw invalid(plan.problems);

    const lines = [
      ...plan.lines.map((line) => ({ ...line, registrationId: user.uid })),
      ...(await makePrivateLines(em, cmd.groupId, user.uid, plan.privateEntries, now)),
    ];
    const cartIds = await insertCartLines(em, user.uid, lines, lastLineId);
    if (cartIds.length > 0) recordEvent(em, productAddedEvent(cmd.groupId, cmd.cloginId, cartIds, lines), now);
    countOrder(em, cmd.groupId, counterBucketOf(user), orderCentsOf(lines));
    const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid)!;
    const { notices } = plan;
    return { uid: user.uid, groupId: cmd.groupId, cloginId: cmd.cloginId, summary, notices, problems: [], cartIds };
  });
}

type PrivateEntry = Extract<Entry, { kind: "private" }>;
type ProductEntry = Extract<Entry, { kind: "product" }>;

/** What the entries come to against the cart as it is, before anything is written. */
interface ProductLinesPlan {
  /** The lines of the project's products, in entry order (their registration is set by the caller). */
  lines: Omit<NewCartLine, "registrationId">[];
  problems: Problem[];
  notices: string[];
  /** The entries naming a private product: made once every entry is known to be accepted. */
  privateEntries: PrivateEntry[];
}

/**
 * The entries checked one after the other against the project's products and the cart, each
 * counted into the cart's category tally as it is accepted, so later entries see earlier ones.
 */
function planProductLines(
  entries: Entry[],
  facts: { products: CartBeforeAdding["products"]; cart: CartContent[]; level: RegistrationLevel; now: Date },
): ProductLinesPlan {
  const plan: ProductLinesPlan = { lines: [], problems: [], notices: [], privateEntries: [] };
  const inCart = new Set(facts.cart.map((line) => line.productId));
  const tally = new CategoryTally(facts.cart);
  for (const entry of entries) {
    if (entry.kind === "private") {
      plan.privateEntries.push(entry);
      continue;
    }
    const path: ProblemPath = ["productList", entry.index];
    const product = facts.products.get(entry.productId);
    const refused = productRefusal(entry, product, facts.level, facts.now, path);
    if (refused || !product) {
      if (refused) plan.problems.push(refused);
      continue;
    }
    const quantity = onlyOnceQuantity(product, entry.quantity, inCart, plan.notices);
    if (quantity === 0) continue;
    const categoryProblem = categoryRefusal(
      product,
      tally.refusal(product.categoryId, product.category, quantity),
      path,
    );
    if (categoryProblem) {
      plan.problems.push(categoryProblem);
      continue;
    }
    tally.count(product.categoryId, quantity);
    inCart.add(product.id);
    plan.lines.push({
      productId: product.id,
      quantity,
      // A discount's line takes its price off the order.
      unitPriceCents: product.baseType === PRODUCT_BASE_TYPES.discount ? -product.priceCents : product.priceCents,
      createdAt: facts.now,
      remark: entry.remark,
      recurringStartDate: entry.startDate,
    });
  }
  return plan;
}

/** Why the entry's product cannot be added at all: not offered to this user, or a start date it does not take. */
function productRefusal(
  entry: ProductEntry,
  product: CartProduct | undefined,
  level: RegistrationLevel,
  now: Date,
  path: ProblemPath,
): Problem | undefined {
  if (!product || !isOfferedTo(product, level, now))
    return {
      path: [...path, "pId"],
      reason: "NOT_AVAILABLE",
      value: entry.productId,
      message: `${entry.productId} is not a product of this project that this user may add now (non-private, of the user's level, available today)`,
    };
  if (entry.startDate && product.baseType !== PRODUCT_BASE_TYPES.subscription)
    return {
      path: [...path, "recurringStartDate"],
      reason: "NOT_ALLOWED",
      message: `is only accepted for subscriptions (type 6); product ${product.id} is type ${product.baseType}`,
    };
  return undefined;
}

/**
 * The quantity to add of a product ordered at most once: 0 when it is in the cart already, 1
 * when more was asked (each with a notice); any other product's quantity as asked.
 */
function onlyOnceQuantity(product: CartProduct, quantity: number, inCart: Set<number>, notices: string[]): number {
  if (!product.onlyOne) return quantity;
  if (inCart.has(product.id)) {
    notices.push(`Product ${product.id} can only be ordered once and is already in the cart; not added again.`);
    return 0;
  }
  if (quantity > 1) notices.push(`Product ${product.id} can only be ordered once; q ${quantity} was cut to 1.`);
  return 1;
}

/** The problem of an entry its category's cart rules refuse. */
function categoryRefusal(
  product: CartProduct,
  refusal: CategoryRefusal | null,
  path: ProblemPath,
): Problem | undefined {
  if (refusal?.rule === "interchange")
    return {
      path,
      reason: "NOT_ALLOWED",
      message: `product ${product.id} is in category ${product.categoryId}, whose products are interchangeable: the cart may hold only one of them`,
    };
  if (refusal?.rule === "quota")
    return {
      path,
      reason: "OUT_OF_RANGE",
      message: `product ${product.id} would bring category ${product.categoryId} to ${refusal.units} units; its quota is ${refusal.quota}`,
    };
  return undefined;
}

/** Private products made for this cart by name, one per entry, and their cart lines. */
async function makePrivateLines(
  em: EntityManager,
  projectId: number,
  registrationId: number,
  privateEntries: PrivateEntry[],
  now: Date,
): Promise<NewCartLine[]> {
  const privateIds = await insertPrivateProducts(
    em,
    privateEntries.map((entry) => ({
      projectId,
      name: entry.name,
      priceCents: entry.priceCents,
      baseType: PRODUCT_BASE_TYPES.merchandise,
      categoryId: null,
      level: "all",
      availableFrom: null,
      availableUntil: null,
      onlyOne: false,
      lockOnceFundsAllocated: false,
      remarks: null,
      location: null,
      internalId: null,
      misc1: null,
      misc2: null,
      parentProductId: null,
      isPrivate: true,
    })),
  );
  return privateEntries.map((entry, i) => ({
    registrationId,
    productId: privateIds[i],
    quantity: entry.quantity,
    unitPriceCents: entry.priceCents,
    createdAt: now,
    remark: entry.remark,
    recurringStartDate: null,
  }));
}

const productAddedEvent = (
  groupId: number,
  cloginId: number,
  cartIds: number[],
  lines: { productId: number; quantity: number }[],
) => ({
  type: "cart.product_added" as const,
  groupId,
  data: {
    clogin_id: cloginId,
    cart_ids: cartIds,
    products: lines.map((line) => ({ p_id: line.productId, q: line.quantity })),
  },
});
const orderCentsOf = (lines: readonly { quantity: number; unitPriceCents: number }[]): number =>
  lines.reduce((sum, line) => sum + lineAmountCents(line.quantity, line.unitPriceCents), 0);
