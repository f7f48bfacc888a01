import { z } from "zod";
import { createCategory, createProduct } from "../../domain/products/products.service";
import type { PathNames } from "../../http/problem-paths";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent, requiredWireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";

// POST /reg/api2/products/ (contract §15). The members of `doc` are handed to the domain command as
// sent, under the command's names; the command owns every rule about them.
const docSchema = z.object({
  group_id: asSent,
  doc: requiredWireDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

const PRODUCT_PATHS: PathNames = {
  groupId: "group_id",
  baseProductType: "doc.base_product_type",
  productName: "doc.product_name",
  productPrice: "doc.product_price",
  catId: "doc.cat_id",
  productType: "doc.product_type",
  productStartDate: "doc.product_start_date",
  productEndDate: "doc.product_end_date",
  productShortRemarks: "doc.product_short_remarks",
  location: "doc.location",
  internalId: "doc.internalid",
  misc1: "doc.misc1",
  misc2: "doc.misc2",
  lockOnceFundsAllocated: "doc.lock_once_funds_allocated",
  onlyOne: "doc.only_one",
  parentPId: "doc.parent_p_id",
};

const CATEGORY_PATHS: PathNames = {
  groupId: "group_id",
  categoryName: "doc.category_name",
  categoryTopRemark: "doc.category_top_remark",
  categoryBottomRemark: "doc.category_bottom_remark",
  categoryQuotaOrdered: "doc.category_quota_ordered",
  interchangeCategory: "doc.interchange_category",
  mandatoryCategory: "doc.mandatory_category",
};

export const productsActions: ActionTable = {
  create: defineAction({
    schema: docSchema,
    problemPaths: PRODUCT_PATHS,
    async run(ctx, input) {
      const doc = input.doc;
      const productId = await createProduct(ctx, {
        groupId: input.group_id,
        baseProductType: doc.base_product_type,
        productName: doc.product_name,
        productPrice: doc.product_price,
        catId: doc.cat_id,
        productType: doc.product_type,
        productStartDate: doc.product_start_date,
        productEndDate: doc.product_end_date,
        productShortRemarks: doc.product_short_remarks,
        location: doc.location,
        internalId: doc.internalid,
        misc1: doc.misc1,
        misc2: doc.misc2,
        lockOnceFundsAllocated: doc.lock_once_funds_allocated,
        onlyOne: doc.only_one,
        parentPId: doc.parent_p_id,
      });
      return { msg: "Product created successfully.", msg_type: "info", p_id: productId, success: true };
    },
  }),

  create_category: defineAction({
    schema: docSchema,
    problemPaths: CATEGORY_PATHS,
    async run(ctx, input) {
      const doc = input.doc;
      const categoryId = await createCategory(ctx, {
        groupId: input.group_id,
        categoryName: doc.category_name,
        categoryTopRemark: doc.category_top_remark,
        categoryBottomRemark: doc.category_bottom_remark,
        categoryQuotaOrdered: doc.category_quota_ordered,
        interchangeCategory: doc.interchange_category,
        mandatoryCategory: doc.mandatory_category,
      });
      return { msg: "Category created successfully.", msg_type: "info", cat_id: categoryId, success: true };
    },
  }),
};
