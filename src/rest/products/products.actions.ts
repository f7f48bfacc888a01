import { z } from "zod";
import { createCategory, createProduct } from "../../domain/products/products.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { integerId } from "../../domain/commands/members";
import { requiredWireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";

// POST /reg/api2/products/ (contract §15). `doc` is passed as sent: the domain owns every rule
// about its members, so REST and GraphQL report the same problems under the same `doc.*` paths.
const docSchema = z.object({
  group_id: integerId,
  doc: requiredWireDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

export const productsActions: ActionTable = {
  create: defineAction({
    schema: docSchema,
    problemPaths: {},
    async run(ctx, input) {
      const productId = await createProduct(ctx, input.group_id, input.doc);
      return { msg: "Product created successfully.", msg_type: "info", p_id: productId, success: true };
    },
  }),

  create_category: defineAction({
    schema: docSchema,
    problemPaths: {},
    async run(ctx, input) {
      const categoryId = await createCategory(ctx, input.group_id, input.doc);
      return { msg: "Category created successfully.", msg_type: "info", cat_id: categoryId, success: true };
    },
  }),
};
