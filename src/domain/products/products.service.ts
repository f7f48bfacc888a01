import type { EntityManager } from "typeorm";
import { z } from "zod";
import { findCategoryByNameKey, findProductReferences, insertCategory, insertProduct } from "../../data/products.data";
import { isUniqueViolation } from "../../db/unique-violation";
import { PRODUCT_BASE_TYPES, type ProductBaseType, type ProductLevel } from "../../entities";
import { parseUtcPeriodEnd } from "../../common/dates";
import type { RequestContext } from "../context";
import { conflict, validationFailed } from "../errors";
import { integerId } from "../commands/members";
import { parseCommand } from "../commands/parse-command";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { MemberReader } from "../member-parsers";
import { inTransaction } from "../transaction";
import { clientValue } from "../../common/client-value";

// The products endpoint (contract §15): create and create_category. Commands carry the members
// exactly as a client sent them, under the command's own names; the rules below check them once
// for every transport, and problems name the command's members (each transport renders the path:
// `productName` is `doc.product_name` in REST and `input.productName` in GraphQL).

/** products `create`, with its members as sent (REST: the members of `doc`). */
export interface ProductDraft {
  groupId?: unknown;
  baseProductType?: unknown;
  productName?: unknown;
  productPrice?: unknown;
  catId?: unknown;
  productType?: unknown;
  productStartDate?: unknown;
  productEndDate?: unknown;
  productShortRemarks?: unknown;
  location?: unknown;
  internalId?: unknown;
  misc1?: unknown;
  misc2?: unknown;
  lockOnceFundsAllocated?: unknown;
  onlyOne?: unknown;
  parentPId?: unknown;
}

/** products `create_category`, with its members as sent (REST: the members of `doc`). */
export interface CategoryDraft {
  groupId?: unknown;
  categoryName?: unknown;
  categoryTopRemark?: unknown;
  categoryBottomRemark?: unknown;
  categoryQuotaOrdered?: unknown;
  interchangeCategory?: unknown;
  mandatoryCategory?: unknown;
}

/** The project both commands act on; their other members depend on each other and are read below. */
const GROUP_ONLY = z.object({ groupId: integerId });

const LEVEL_OF_PRODUCT_TYPE: Record<number, ProductLevel> = { 0: "all", 1: "parent", 2: "child" };
const CREATABLE_BASE_TYPES = new Set<number>([1, 2, 3, 4, 6, 7]);

/** `baseProductType`: one a caller may create (not the system's days within a session); null when it is not. */
function readBaseType(read: MemberReader, draft: ProductDraft): number | null {
  const baseType = read.integer(["baseProductType"], draft.baseProductType, { required: true });
  if (baseType === PRODUCT_BASE_TYPES.system) {
    read.problem(
      ["baseProductType"],
      "NOT_ALLOWED",
      "5 (days within a session) is made by the system and cannot be created",
    );
    return null;
  }
  if (baseType !== null && !CREATABLE_BASE_TYPES.has(baseType)) {
    read.problem(
      ["baseProductType"],
      "NOT_ALLOWED",
      `must be 1 (event), 2 (discount), 3 (session holder), 4 (session), 6 (subscription) or 7 (merchandise), got ${clientValue(draft.baseProductType)}`,
      draft.baseProductType,
    );
    return null;
  }
  return baseType;
}

/** `productType`: which registrations the product is for (0, the default: parents and children). */
function readLevel(read: MemberReader, draft: ProductDraft): ProductLevel {
  const productType = read.integer(["productType"], draft.productType, { required: false }) ?? 0;
  const level = LEVEL_OF_PRODUCT_TYPE[productType];
  if (!level)
    read.problem(
      ["productType"],
      "NOT_ALLOWED",
      `must be 0 (parent and child), 1 (parent only) or 2 (child only), got ${clientValue(draft.productType)}`,
      draft.productType,
    );
  return level;
}

/**
 * When the product is offered (`productStartDate`, `productEndDate`):
 * merchandise has no dates, and a period may not end before it starts.
 */
function readAvailability(
  read: MemberReader,
  draft: ProductDraft,
  baseType: number | null,
): { availableFrom: Date | null; availableUntil: Date | null } {
  const start = read.date(["productStartDate"], draft.productStartDate);
  const end = read.date(["productEndDate"], draft.productEndDate);
  const until = end ? parseUtcPeriodEnd(end.text) : null;
  if (baseType === PRODUCT_BASE_TYPES.merchandise) {
    if (start)
      read.problem(["productStartDate"], "NOT_ALLOWED", "is not accepted for merchandise (type 7), which has no dates");
    if (end)
      read.problem(["productEndDate"], "NOT_ALLOWED", "is not accepted for merchandise (type 7), which has no dates");
  } else if (start && until && until < start.date) {
    read.problem(["productEndDate"], "OUT_OF_RANGE", `must not be before the start date ${clientValue(start.text)}`);
  }
  return { availableFrom: start?.date ?? null, availableUntil: until };
}

/** `catId` must be a category of the project, and a session's `parentPId` a session holder of it. */
async function checkProductReferences(
  em: EntityManager,
  read: MemberReader,
  groupId: number,
  product: { categoryId: number | null; parentProductId: number | null; baseType: number | null },
): Promise<void> {
  const { categoryId, parentProductId, baseType } = product;
  const references = await findProductReferences(
    em,
    groupId,
    categoryId === null ? [] : [categoryId],
    parentProductId === null ? [] : [parentProductId],
  );
  if (categoryId !== null && !references.categoryIds.has(categoryId))
    read.problem(["catId"], "NOT_AVAILABLE", `${categoryId} is not a category of this project`);
  if (
    parentProductId !== null &&
    baseType === PRODUCT_BASE_TYPES.session &&
    references.productTypes.get(parentProductId) !== PRODUCT_BASE_TYPES.sessionHolder
  )
    read.problem(["parentPId"], "NOT_AVAILABLE", `${parentProductId} is not a session holder (type 3) of this project`);
}

/**
 * products `create`: every broken rule is reported at once (shape, and the references `cat_id`
 * and `parent_p_id` to the project). Throws FORBIDDEN or VALIDATION_FAILED; returns the new p_id.
 */
export async function createProduct(ctx: RequestContext, draft: ProductDraft): Promise<number> {
  const groupId = parseCommand(GROUP_ONLY, { groupId: draft.groupId }).groupId;
  authorize(ctx, "products.create", { groupId });
  const read = new MemberReader();

  const baseType = readBaseType(read, draft);
  const name = read.text(["productName"], draft.productName, { required: true, max: 200 });
  const priceCents = read.money(["productPrice"], draft.productPrice, { required: true });
  if (baseType === PRODUCT_BASE_TYPES.discount && priceCents === 0)
    read.problem(["productPrice"], "OUT_OF_RANGE", "must be more than 0 for a discount");
  const categoryId = read.integer(["catId"], draft.catId, { required: true });
  const level = readLevel(read, draft);
  const { availableFrom, availableUntil } = readAvailability(read, draft, baseType);
  const remarks = read.text(["productShortRemarks"], draft.productShortRemarks, { required: false, max: 2000 });
  const location = read.text(["location"], draft.location, { required: false, max: 255 });
  const internalId = read.text(["internalId"], draft.internalId, { required: false, max: 255 });
  const misc1 = read.text(["misc1"], draft.misc1, { required: false, max: 255 });
  const misc2 = read.text(["misc2"], draft.misc2, { required: false, max: 255 });
  const lockOnceFundsAllocated = read.flag(["lockOnceFundsAllocated"], draft.lockOnceFundsAllocated, false);
  const onlyOne = read.flag(["onlyOne"], draft.onlyOne, false);
  const parentProductId = read.integer(["parentPId"], draft.parentPId, {
    required: baseType === PRODUCT_BASE_TYPES.session,
  });
  if (parentProductId !== null && baseType !== null && baseType !== PRODUCT_BASE_TYPES.session)
    read.problem(["parentPId"], "NOT_ALLOWED", "is only accepted for a session (type 4)");

  return inTransaction(ctx, "products.create", async ({ em }) => {
    await resolveOwnedProject(ctx, groupId, em);
    await checkProductReferences(em, read, groupId, { categoryId, parentProductId, baseType });
    if (read.problems.length > 0) throw validationFailed(read.problems);

    return insertProduct(em, {
      projectId: groupId,
      name: name!,
      priceCents: priceCents!,
      baseType: baseType as ProductBaseType,
      categoryId,
      level,
      availableFrom,
      availableUntil,
      onlyOne,
      lockOnceFundsAllocated,
      remarks,
      location,
      internalId,
      misc1,
      misc2,
      parentProductId,
      isPrivate: false,
    });
  });
}

/**
 * products `create_category`. Throws VALIDATION_FAILED (every broken rule), FORBIDDEN, or
 * CONFLICT with `extra.cat_id` when the project has a category of that name (case-insensitive).
 */
export async function createCategory(ctx: RequestContext, draft: CategoryDraft): Promise<number> {
  const groupId = parseCommand(GROUP_ONLY, { groupId: draft.groupId }).groupId;
  authorize(ctx, "products.create", { groupId });
  const read = new MemberReader();
  const name = read.text(["categoryName"], draft.categoryName, { required: true, max: 200 });
  const topRemark = read.text(["categoryTopRemark"], draft.categoryTopRemark, { required: false, max: 2000 });
  const bottomRemark = read.text(["categoryBottomRemark"], draft.categoryBottomRemark, {
    required: false,
    max: 2000,
  });
  const quota = read.integer(["categoryQuotaOrdered"], draft.categoryQuotaOrdered, { required: false });
  if (quota === 0)
    read.problem(["categoryQuotaOrdered"], "OUT_OF_RANGE", "must be at least 1 (leave it out for no limit)");
  const interchange = read.flag(["interchangeCategory"], draft.interchangeCategory, false);
  const mandatory = read.flag(["mandatoryCategory"], draft.mandatoryCategory, false);
  if (read.problems.length > 0) throw validationFailed(read.problems);
  const nameKey = name!.toLowerCase();

  try {
    return await inTransaction(ctx, "products.create_category", async ({ em }) => {
      await resolveOwnedProject(ctx, groupId, em);
      const existing = await findCategoryByNameKey(em, groupId, nameKey, false);
      if (existing) throw duplicateCategory(name!, existing);
      return insertCategory(em, {
        projectId: groupId,
        name: name!,
        nameKey,
        topRemark,
        bottomRemark,
        quotaOrdered: quota,
        interchange,
        mandatory,
      });
    });
  } catch (error) {
    // A concurrent call inserted the same name between our check and our insert.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findCategoryByNameKey(ctx.em, groupId, nameKey, ctx.inTransaction);
    if (!winner) throw error;
    throw duplicateCategory(name!, winner);
  }
}

const duplicateCategory = (name: string, existing: { id: number; name: string }) =>
  conflict(
    `Category name "${name}" is taken in this project by cat_id ${existing.id} ("${existing.name}"); names are compared case-insensitively.`,
    { cat_id: existing.id },
  );
