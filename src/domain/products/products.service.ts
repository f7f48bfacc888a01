import { findCategoryByNameKey, findProductReferences, insertCategory, insertProduct } from "../../data/products.data";
import { isUniqueViolation } from "../../db/unique-violation";
import { PRODUCT_BASE_TYPES, type ProductBaseType, type ProductLevel } from "../../entities";
import { parseUtcPeriodEnd } from "../../shared/dates";
import type { RequestContext } from "../context";
import { conflict } from "../errors";
import { resolveOwnedProject } from "../group-scope";
import { failedWithMemberProblems, MemberReader, shown } from "../member-parsers";
import { inTransaction } from "../transaction";

// The products endpoint (contract §15): create and create_category. Commands carry the members
// exactly as a client sent them (`doc` of the legacy envelope, or the GraphQL input under the same
// names); the rules below check them once for both transports, and problems are reported under
// the legacy wire paths (`doc.product_name`), the one vocabulary every client shares.

/** The `doc` of products `create`, as sent. */
export interface ProductDraft {
  base_product_type?: unknown;
  product_name?: unknown;
  product_price?: unknown;
  cat_id?: unknown;
  product_type?: unknown;
  product_start_date?: unknown;
  product_end_date?: unknown;
  product_short_remarks?: unknown;
  location?: unknown;
  internalid?: unknown;
  misc1?: unknown;
  misc2?: unknown;
  lock_once_funds_allocated?: unknown;
  only_one?: unknown;
  parent_p_id?: unknown;
}

/** The `doc` of products `create_category`, as sent. */
export interface CategoryDraft {
  category_name?: unknown;
  category_top_remark?: unknown;
  category_bottom_remark?: unknown;
  category_quota_ordered?: unknown;
  interchange_category?: unknown;
  mandatory_category?: unknown;
}

const LEVEL_OF_PRODUCT_TYPE: Record<number, ProductLevel> = { 0: "all", 1: "parent", 2: "child" };
const CREATABLE_BASE_TYPES = new Set<number>([1, 2, 3, 4, 6, 7]);

/**
 * products `create`: every broken rule is reported at once (shape, and the references `cat_id`
 * and `parent_p_id` to the project). Throws FORBIDDEN or VALIDATION_FAILED; returns the new p_id.
 */
export async function createProduct(ctx: RequestContext, groupId: number, draft: ProductDraft): Promise<number> {
  const read = new MemberReader();
  const path = (member: string) => `doc.${member}`;

  let baseType: number | null = read.integer(path("base_product_type"), draft.base_product_type, { required: true });
  if (baseType === PRODUCT_BASE_TYPES.system) {
    read.problem(path("base_product_type"), "5 (days within a session) is made by the system and cannot be created");
    baseType = null;
  } else if (baseType !== null && !CREATABLE_BASE_TYPES.has(baseType)) {
    read.problem(
      path("base_product_type"),
      `must be 1 (event), 2 (discount), 3 (session holder), 4 (session), 6 (subscription) or 7 (merchandise), got ${shown(draft.base_product_type)}`,
    );
    baseType = null;
  }
  const name = read.text(path("product_name"), draft.product_name, { required: true, max: 200 });
  const priceCents = read.money(path("product_price"), draft.product_price, { required: true });
  if (baseType === PRODUCT_BASE_TYPES.discount && priceCents === 0)
    read.problem(path("product_price"), "must be more than 0 for a discount");
  const categoryId = read.integer(path("cat_id"), draft.cat_id, { required: true });
  const productType = read.integer(path("product_type"), draft.product_type, { required: false }) ?? 0;
  const level = LEVEL_OF_PRODUCT_TYPE[productType];
  if (!level)
    read.problem(
      path("product_type"),
      `must be 0 (parent and child), 1 (parent only) or 2 (child only), got ${shown(draft.product_type)}`,
    );
  const start = read.date(path("product_start_date"), draft.product_start_date);
  const end = read.date(path("product_end_date"), draft.product_end_date);
  const until = end ? parseUtcPeriodEnd(end.text) : null;
  if (baseType === PRODUCT_BASE_TYPES.merchandise) {
    if (start) read.problem(path("product_start_date"), "is not accepted for merchandise (type 7), which has no dates");
    if (end) read.problem(path("product_end_date"), "is not accepted for merchandise (type 7), which has no dates");
  } else if (start && until && until < start.date) {
    read.problem(path("product_end_date"), `must not be before product_start_date ${shown(start.text)}`);
  }
  const remarks = read.text(path("product_short_remarks"), draft.product_short_remarks, { required: false, max: 2000 });
  const location = read.text(path("location"), draft.location, { required: false, max: 255 });
  const internalId = read.text(path("internalid"), draft.internalid, { required: false, max: 255 });
  const misc1 = read.text(path("misc1"), draft.misc1, { required: false, max: 255 });
  const misc2 = read.text(path("misc2"), draft.misc2, { required: false, max: 255 });
  const lockOnceFundsAllocated = read.flag(path("lock_once_funds_allocated"), draft.lock_once_funds_allocated, false);
  const onlyOne = read.flag(path("only_one"), draft.only_one, false);
  const parentProductId = read.integer(path("parent_p_id"), draft.parent_p_id, {
    required: baseType === PRODUCT_BASE_TYPES.session,
  });
  if (parentProductId !== null && baseType !== null && baseType !== PRODUCT_BASE_TYPES.session)
    read.problem(path("parent_p_id"), "is only accepted for a session (type 4)");

  return inTransaction(ctx, async ({ em }) => {
    await resolveOwnedProject(ctx, groupId, em);
    const references = await findProductReferences(
      em,
      groupId,
      categoryId === null ? [] : [categoryId],
      parentProductId === null ? [] : [parentProductId],
    );
    if (categoryId !== null && !references.categoryIds.has(categoryId))
      read.problem(path("cat_id"), `${categoryId} is not a category of this project`);
    if (
      parentProductId !== null &&
      baseType === PRODUCT_BASE_TYPES.session &&
      references.productTypes.get(parentProductId) !== PRODUCT_BASE_TYPES.sessionHolder
    )
      read.problem(path("parent_p_id"), `${parentProductId} is not a session holder (type 3) of this project`);
    if (read.problems.length > 0) throw failedWithMemberProblems(read.problems);

    return insertProduct(em, {
      projectId: groupId,
      name: name!,
      priceCents: priceCents!,
      baseType: baseType as ProductBaseType,
      categoryId,
      level,
      availableFrom: start?.date ?? null,
      availableUntil: until,
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
export async function createCategory(ctx: RequestContext, groupId: number, draft: CategoryDraft): Promise<number> {
  const read = new MemberReader();
  const path = (member: string) => `doc.${member}`;
  const name = read.text(path("category_name"), draft.category_name, { required: true, max: 200 });
  const topRemark = read.text(path("category_top_remark"), draft.category_top_remark, { required: false, max: 2000 });
  const bottomRemark = read.text(path("category_bottom_remark"), draft.category_bottom_remark, {
    required: false,
    max: 2000,
  });
  const quota = read.integer(path("category_quota_ordered"), draft.category_quota_ordered, { required: false });
  if (quota === 0) read.problem(path("category_quota_ordered"), "must be at least 1 (leave it out for no limit)");
  const interchange = read.flag(path("interchange_category"), draft.interchange_category, false);
  const mandatory = read.flag(path("mandatory_category"), draft.mandatory_category, false);
  if (read.problems.length > 0) throw failedWithMemberProblems(read.problems);
  const nameKey = name!.toLowerCase();

  try {
    return await inTransaction(ctx, async ({ em }) => {
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
